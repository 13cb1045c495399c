//go:build tools

// Package temporalserverprevious pins the Temporal server one minor version
// before the one compose.yml runs (latest patch of that minor): `make
// test-production` starts a cluster on it, lets the bot write data, then
// upgrades the schema with the pinned release's job and starts the pin on
// it, as an operator's `docker compose up -d` after a `git pull` does. Its
// own module for the same reason as tools/temporalserver.
package temporalserverprevious

import (
	_ "go.temporal.io/server/cmd/server"
	_ "go.temporal.io/server/cmd/tools/sql"
)
