# Build stage: a release build of the server.
FROM swift:6.3-bookworm AS build
# RE2 (linear-time regular expressions for `.matches`), zlib (gzipped client answers) and pkg-config, which the
# build finds them with.
RUN apt-get update && apt-get install -y --no-install-recommends libre2-dev zlib1g-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
# The server is the package in server/; it reads the SDK's package (the repository root) for its tests, so both
# manifests and the folders they name are copied.
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY server ./server
WORKDIR /src/server
RUN swift build -c release --product remote-config --static-swift-stdlib \
    && mkdir -p /out \
    && cp .build/release/remote-config /out/ \
    && cp -RL .build/release/*.resources /out/

# Run stage: the binary, its bundled migrations and OpenAPI file, RE2's and zlib's shared libraries, and curl for
# the health check.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl libcurl4 libxml2 tzdata \
    libre2-9 zlib1g \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /app remote-config \
    && install -d -o remote-config -m 700 /data
WORKDIR /app
COPY --from=build /out/ /app/
USER remote-config
# The data dir holds the secrets key made on the first start when RC_SECRETS_KEY is not set: mount a volume there
# (docker-compose.yml does), or the key is lost with the container and the next one refuses to start.
ENV RC_HOST=0.0.0.0 RC_PORT=8080 RC_DATA_DIR=/data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1
ENTRYPOINT ["/app/remote-config", "serve"]
