"""The OpenAPI 3.1 document of the whole HTTP API, built from the route table, and its offline docs page.

``GET /openapi.json`` answers :func:`document` of the app's routes (:mod:`streams.http.routes`): each
route's roles (``x-roles`` and its security), path and query parameters with their bounds, and its
answers. Records are described by ``schemas/record.schema.json`` itself (JSON Schema 2020-12, which
OpenAPI 3.1 speaks natively; its ``$defs`` become components). ``GET /docs`` is Swagger UI, vendored
under ``static/vendor/swagger-ui/`` (Apache-2.0, its licence beside it): no CDN, it works offline.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from aiohttp import web

from replay import ENGINE_VERSION
from schemas import load_schema
from streams.http.routes import MATCH_PATTERN, ROUTES, Route

ERRORS: dict[int, str] = {
    400: "bad request: a bad parameter, match id, body or credential in the URL",
    401: "no credential, or one that is malformed, unknown, expired or revoked",
    403: "not allowed: the credential's role or scope, another producer's match, a judge's amendment, or "
    "a login or logout from another site",
    404: "no such resource or match",
    405: "method not allowed on this path",
    408: "the request body did not arrive in time",
    413: "the body is too large, or carries too many events",
    415: "a login body that is neither a form nor JSON",
    429: "too many requests in progress with this token (or, without one, from this client address), or "
    "too many live streams from this address",
    503: "the store is unavailable, or no room for another live stream",
    500: "an archived match whose cold copy is not the one archived (code `archive_copy`: a tamper alarm "
    "is raised), or an internal error",
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _move_defs(schema: Mapping[str, Any], prefix: str, into: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema document as a component: its ``$defs`` become ``<prefix>_<name>`` components and
    every ``#/$defs/x`` reference points there (OpenAPI resolves references from the document's root)."""

    def rewrite(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                if k == "$ref" and isinstance(v, str) and v.startswith("#/$defs/"):
                    out[k] = f"#/components/schemas/{prefix}_{v[len('#/$defs/') :]}"
                else:
                    out[k] = rewrite(v)
            return out
        if isinstance(node, list):
            return [rewrite(v) for v in node]
        return node

    body = {k: v for k, v in schema.items() if k not in ("$defs", "$schema", "$id")}
    for name, sub in schema.get("$defs", {}).items():
        into[f"{prefix}_{name}"] = rewrite(copy.deepcopy(sub))
    return dict(rewrite(copy.deepcopy(body)))


def components() -> dict[str, Any]:
    """The shared schemas: errors, ingest answers, index entries, records and their versions, boards,
    health."""
    schemas: dict[str, Any] = {}
    schemas["Record"] = _move_defs(load_schema("record"), "Record", schemas)
    schemas["Error"] = {
        "type": "object",
        "required": ["error", "code"],
        "properties": {
            "error": {
                "type": "string",
                "description": "what is wrong, in plain words, in the request's language (?lang=, else "
                "Accept-Language; English otherwise)",
            },
            "code": {
                "type": "string",
                "description": "a stable code for programs (bad_parameter, forbidden...)",
            },
            "field": {
                "type": "string",
                "description": "the request's field the error is about, where one field is the cause for "
                "every file sent with it (players_by_id: the players list cannot be read)",
            },
        },
    }
    schemas["Outcome"] = {
        "type": "object",
        "required": ["index", "status", "match", "seq"],
        "properties": {
            "index": {"type": "integer", "minimum": 0},
            "line": {"type": "integer", "minimum": 1},
            "status": {"enum": ["applied", "duplicate", "buffered", "rejected"]},
            "match": {"type": ["string", "null"]},
            "seq": {"type": ["integer", "null"]},
            "reason": {"type": "string"},
            "field": {"type": "string"},
            "applied": {"type": "array", "items": {"type": "integer"}},
        },
    }
    schemas["IngestAnswer"] = {
        "type": "object",
        "required": ["counts", "outcomes"],
        "properties": {
            "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
            "outcomes": {"type": "array", "items": _ref("Outcome")},
            "receipts": {
                "type": "array",
                "description": "one per match the request wrote to: what is archived of it now, signed",
                "items": _ref("Receipt"),
            },
        },
    }
    schemas["Receipt"] = {
        "type": "object",
        "description": "signed by the service (Ed25519, over `prizecheck-receipt/1`, NUL, the canonical "
        "JSON of match, seq, events, chain, at): `prizecheck verify --receipts FILE --keys KEYS` checks it",
        "required": ["match", "seq", "events", "chain", "at", "alg", "key_id", "value"],
        "properties": {
            "match": {"type": "string"},
            "seq": {"type": "integer", "description": "the head: every seq up to it is archived"},
            "events": {"type": "integer", "description": "events archived in order"},
            "chain": {"type": "string", "description": "the hash chain's head after them (hex)"},
            "at": {"type": "string", "format": "date-time"},
            "alg": {"const": "Ed25519"},
            "key_id": {"type": "string"},
            "value": {"type": "string", "description": "the signature (hex)"},
        },
    }
    schemas["PublicKeys"] = {
        "type": "object",
        "description": "the service's public keys: every signature names one by its key id",
        "required": ["format", "active", "keys"],
        "properties": {
            "format": {"const": "prizecheck-keys/1"},
            "active": {"type": ["string", "null"], "description": "the key new signatures are made with"},
            "keys": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["kid", "alg", "public_key", "status"],
                    "properties": {
                        "kid": {
                            "type": "string",
                            "description": "sha256 of the raw public key, 16 hex digits",
                        },
                        "alg": {"const": "Ed25519"},
                        "public_key": {"type": "string", "description": "the raw 32-byte key (hex)"},
                        "status": {"enum": ["active", "retired"]},
                    },
                },
            },
        },
    }
    nullable = {"type": ["string", "null"]}
    schemas["IndexEntry"] = {
        "type": "object",
        "required": [
            "match", "status", "league", "season", "players", "findings", "event", "round", "table", "date",
            "top_finding",
        ],
        "properties": {
            "match": {"type": "string"},
            "status": {"type": "string"},
            "league": nullable,
            "season": nullable,
            "players": {"type": "array", "items": {"type": "string"}},
            "findings": {"type": "object", "additionalProperties": {"type": "integer"}},
            "event": nullable,
            "round": nullable,
            "table": nullable,
            "date": {**nullable, "description": "the day the game started (YYYY-MM-DD)"},
            "top_finding": {
                "description": "the most severe finding (public text); null with none, or when indexed "
                "before this field existed and not written since",
                "anyOf": [
                    {"type": "null"},
                    {
                        "type": "object",
                        "required": ["severity", "code", "seq", "message"],
                        "properties": {
                            "severity": {"type": "string"},
                            "code": {"type": "string"},
                            "seq": {"type": ["integer", "null"]},
                            "message": {"type": "string"},
                        },
                    },
                ],
            },
        },
    }  # fmt: skip
    schemas["MatchList"] = {
        "type": "object",
        "required": ["total", "matches", "next"],
        "properties": {
            "total": {"type": "integer", "minimum": 0},
            "matches": {"type": "array", "items": _ref("IndexEntry")},
            "next": {
                "type": ["string", "null"],
                "description": "the cursor of the next page (?cursor=), null on the last",
            },
            "too_broad": {
                "const": True,
                "description": "the search would look through too many matches: narrow it with a filter",
            },
        },
    }
    schemas["RecordStub"] = {
        "type": "object",
        "description": "a playoff game announced by its drawn parent, not started yet",
        "required": ["match", "status", "stub"],
        "properties": {
            "match": {"type": "string"},
            "status": {"const": "in_progress"},
            "stub": {"const": True},
        },
    }
    schemas["VersionSummary"] = {
        "type": "object",
        "description": "one version of a finished record (streams/history.py; docs/records.md, Versions)",
        "required": ["version", "cause", "status", "result", "agrees", "findings", "events", "signature"],
        "properties": {
            "version": {"type": "integer", "minimum": 1},
            "cause": {
                "type": "object",
                "description": "the event that made this version: of this match, or of a playoff game",
                "required": ["match", "seq"],
                "properties": {"match": {"type": "string"}, "seq": {"type": "integer", "minimum": 1}},
            },
            "status": {"enum": ["finished", "awaiting_playoff", "in_progress", None]},
            "result": {
                "type": ["object", "null"],
                "properties": {
                    "outcome": {"enum": ["win", "draw", "no_winner", None]},
                    "winner": {"type": ["string", "null"]},
                    "loser": {"type": ["string", "null"]},
                    "reason": {"type": ["string", "null"]},
                    "decided_at": {"type": ["integer", "null"]},
                    "turn": {"type": ["integer", "null"]},
                },
            },
            "agrees": {"type": ["boolean", "null"]},
            "findings": {"type": ["integer", "null"], "minimum": 0},
            "events": {"type": ["integer", "null"], "minimum": 0},
            "signature": {
                "type": "object",
                "required": ["status", "key_id"],
                "properties": {
                    "status": {"enum": ["valid", "invalid", "not_checked", "unsigned", "unreadable"]},
                    "key_id": {"type": ["string", "null"]},
                },
            },
            "unreadable": {"const": True, "description": "the stored bytes of this version are unreadable"},
        },
    }
    schemas["Board"] = {
        "type": "object",
        "description": "the public board (docs/engine-api.md): counts for hidden zones, never a hidden card",
        "required": ["match", "seq", "players"],
        "properties": {
            "match": {"type": "string"},
            "seq": {"type": "integer"},
            "players": {"type": "object"},
        },
    }
    schemas["Health"] = {
        "type": "object",
        "required": ["ok", "ingest"],
        "properties": {"ok": {"type": "boolean"}, "ingest": {"type": "object"}, "live": {"type": "object"}},
    }
    schemas["Stats"] = {
        "type": "object",
        "description": "a scoped token gets the findings and the number of its matches only, with its scope",
        "required": ["findings"],
        "properties": {
            "ingest": {"type": "object"},
            "findings": {"type": "object", "additionalProperties": {"type": "integer"}},
            "live": {"type": "object"},
            "matches": {"type": "integer", "minimum": 0},
            "scope": {"type": "object"},
        },
    }
    schemas["Login"] = {
        "type": "object",
        "required": ["ok", "next"],
        "properties": {
            "ok": {"const": True},
            "next": {"type": "string"},
            "roles": {"type": "array", "items": {"type": "string"}},
        },
    }
    return schemas


def _operation(route: Route) -> dict[str, Any]:
    params: list[dict[str, Any]] = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}
        for name in route.path_params
        if name != "match"
    ]
    if route.has_match:
        params.append(
            {
                "name": "match",
                "in": "path",
                "required": True,
                "description": "the match id; a `/` in it (a playoff game, `m1/tb1`) may be sent as `%2F`",
                "schema": {"type": "string", "pattern": MATCH_PATTERN},
            }
        )
    for p in route.query:
        param: dict[str, Any] = {
            "name": p.name,
            "in": "query",
            "required": False,
            "description": p.description,
            "schema": p.schema(),
        }
        if p.blank:
            param["allowEmptyValue"] = True  # an empty value is "not given"
        params.append(param)
    responses: dict[str, Any] = {}
    for status, answer in route.answers.items():
        entry: dict[str, Any] = {"description": answer.description}
        if answer.media:
            entry["content"] = {answer.media: {"schema": dict(answer.schema or {})}}
            for media in answer.also:  # the same resource as MessagePack bytes
                entry["content"][media] = {"schema": {"type": "string", "contentEncoding": "binary"}}
        responses[str(status)] = entry
    if route.page:
        responses.setdefault(
            "303",
            {"description": "no judge session: to /login?next=... (a browser logs in, then comes back)"},
        )
    for status, text in ERRORS.items():
        responses.setdefault(
            str(status), {"description": text, "content": {"application/json": {"schema": _ref("Error")}}}
        )
    public = "public" in route.roles
    op: dict[str, Any] = {
        "summary": route.summary,
        "operationId": route.method.lower()
        + "_"
        + (re.sub(r"[^a-z0-9]+", "_", route.path.lower()).strip("_") or "root"),
        "tags": [route.tag],
        "x-roles": sorted(route.roles),
        "parameters": params,
        "responses": responses,
    }
    if route.description or route.hidden:
        op["description"] = route.description + (
            " Shows hidden information: every call is in the audit log." if route.hidden else ""
        )
    # Who may call it: the public needs nothing; otherwise a bearer token (or, for reads, the judge session).
    op["security"] = (
        [{}]
        if public
        else [{"bearer": []}, {"session": []}]
        if route.method in ("GET", "HEAD")
        else [{"bearer": []}]
    )
    if route.stream:
        op["x-stream"] = True  # never ends: request generators must not wait for its end
    if route.body:
        op["requestBody"] = {
            "required": True,
            "content": {k: {"schema": dict(v)} for k, v in route.body.items()},
        }
    return op


def document(routes: Iterable[Route], version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document describing ``routes``.

    It names no ``jsonSchemaDialect``: the default one of OpenAPI 3.1 is JSON Schema 2020-12 (the
    contract's schemas) with OpenAPI's vocabulary, and Swagger UI warns on any other value."""
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Prizecheck",
            "version": version,
            "description": (
                "Replays and audits Pokémon TCG games: ingest events, read records, boards and the archive. "
                "Roles: ingest (writes), judge (everything, hidden cards included), organizer (records, "
                'index, counters), public (no credential). Errors are always {"error", "code"}. '
                "See docs/http-api.md."
            ),
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": components(),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "a token from `prizecheck token create`",
                },
                "session": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": "prizecheck_session",
                    "description": "set by POST /login (reads only)",
                },
            },
        },
    }


async def openapi_json(request: web.Request) -> web.Response:
    """GET /openapi.json: this document."""
    routes = request.app[ROUTES]
    body = json.dumps(document(routes, ENGINE_VERSION), ensure_ascii=False, indent=1).encode()
    return web.Response(body=body, content_type="application/json", headers={"Cache-Control": "no-cache"})
