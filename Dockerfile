# syntax=docker/dockerfile:1
# One image per Kollect service, all from this file:
#   docker build --build-arg SERVICE=control -t ghcr.io/kollect-dev/control:0.1.0 .
# SERVICE is a binary name: control, collector, aggregator, snapshotexporter,
# databaseexporter, eventexporter, or kollect (the CLI, built from services/cli).
ARG GO_VERSION=1.27.3

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG SERVICE
ARG VERSION=dev
ARG TARGETOS=linux
ARG TARGETARCH
WORKDIR /src
# Modules first, so that a source change reuses the downloaded module cache layer.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=bind,source=go.mod,target=go.mod \
    --mount=type=bind,source=go.sum,target=go.sum \
    go mod download -x
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    --mount=type=bind,target=. \
    set -eu; \
    test -n "${SERVICE}" || { echo "--build-arg SERVICE=<binary> is required" >&2; exit 1; }; \
    dir="services/${SERVICE}"; [ "${SERVICE}" = kollect ] && dir=services/cli; \
    test -f "${dir}/cmd/main.go" || { echo "no ${dir}/cmd/main.go for SERVICE=${SERVICE}" >&2; exit 1; }; \
    CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/service "./${dir}/cmd"

# distroless static: no shell, no package manager, CA certificates and tzdata only.
FROM gcr.io/distroless/static-debian12:nonroot
ARG SERVICE
ARG VERSION=dev
LABEL org.opencontainers.image.title="kollect ${SERVICE}" \
      org.opencontainers.image.source="https://github.com/kollect-dev/kollect" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/service /usr/local/bin/service
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/service"]
