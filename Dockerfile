# No `# syntax=` line: Docker 28's built-in Dockerfile frontend runs every
# instruction used here (RUN --mount=type=cache included), and an external
# frontend would be one more image pulled, unpinned, at build time.
#
# Image for the OpenAI status bot. One image serves every role; the
# subcommand picks it:
#   docker run IMAGE worker        Temporal worker (poll + delivery workflows)
#   docker run IMAGE bot           Telegram long-poll command handler
#   docker run IMAGE               both (default: "all")
#   docker run IMAGE healthcheck   exits 0 if GET http://$HEALTH_ADDR/readyz is 200
#   docker run IMAGE version       prints the version stamped at build time
# Configuration comes from the environment; see .env.example.
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t statusbot:local .
#
# Base images are pinned to exact versions (the Go toolchain this repository
# is tested with, and distroless' Debian 13 line). Pin digests too when your
# registry policy asks for it: `docker buildx imagetools inspect IMAGE`.

ARG GO_VERSION=1.26.11

# ---- build ------------------------------------------------------------------
# Runs on the build host's platform and cross-compiles (no CGO), so
# `docker buildx build --platform linux/amd64,linux/arm64` needs no emulation.
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-trixie AS build
ARG TARGETOS
ARG TARGETARCH
# Stamped into the binary: `statusbot version` and the start-up log line.
ARG VERSION=dev
WORKDIR /src
# GOWORK=off: build the root module alone even if a go.work appears later
# (tools/ is not in the build context, see .dockerignore).
ENV CGO_ENABLED=0 \
    GOWORK=off \
    GOFLAGS=-buildvcs=false

# Module downloads get their own layer, rebuilt only when go.mod/go.sum change.
COPY go.mod go.sum ./
RUN go mod download && go mod verify

COPY . .
RUN --mount=type=cache,target=/root/.cache/go-build \
    GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/statusbot ./cmd/statusbot

# ---- runtime ----------------------------------------------------------------
# distroless/static ships CA certificates (/etc/ssl/certs/ca-certificates.crt),
# tzdata and /etc/passwd with the nonroot user, and nothing else: no shell,
# no curl. Hence the HEALTHCHECK uses the binary itself.
FROM gcr.io/distroless/static-debian13:nonroot
COPY --from=build /out/statusbot /statusbot
# 65532:65532 is distroless's "nonroot" user; numeric so that Kubernetes'
# runAsNonRoot can verify it.
USER 65532:65532
# Listen on all interfaces inside the container so that Docker, Compose or
# Kubernetes probes (/livez, /readyz) and Prometheus (/metrics) can reach
# them. Nothing publishes these ports by default.
ENV HEALTH_ADDR=0.0.0.0:8080 \
    METRICS_ADDR=0.0.0.0:9090
EXPOSE 8080 9090
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["/statusbot", "healthcheck"]
ENTRYPOINT ["/statusbot"]
CMD ["all"]
