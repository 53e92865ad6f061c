# Prizecheck service image: `prizecheck serve`, `prizecheck worker`, `prizecheck produce` (docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
# Only what the package needs: tests, benchmarks and docs stay out of the image, but for docs/rules.md,
# which the package ships (replay/docs/rules.md links to it; /rules serves it).
COPY pyproject.toml README.md requirements-service.lock ./
COPY docs/rules.md ./docs/rules.md
COPY replay ./replay
COPY streams ./streams
COPY schemas ./schemas
# The service's dependencies at the exact versions and hashes the tests ran (make lock), then the package
# itself, built by the locked setuptools: nothing unpinned is downloaded.
RUN pip install --require-hashes --no-deps -r requirements-service.lock \
    && pip install --no-deps --no-build-isolation ".[service]" \
    && useradd --create-home --uid 10001 prizecheck \
    && install -d -o prizecheck -m 700 /home/prizecheck/tokens /home/prizecheck/data

USER prizecheck
WORKDIR /home/prizecheck
# The embedded Redis (no REDIS_URL) and Faust keep their files here.
ENV PRIZECHECK_DATA_DIR=/home/prizecheck/data
EXPOSE 8080
CMD ["prizecheck", "serve"]
