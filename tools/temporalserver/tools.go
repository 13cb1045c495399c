//go:build tools

// Package temporalserver pins the Temporal server that `make
// test-production` builds: the same release compose.yml runs
// (temporalio/server and temporalio/admin-tools). It is its own module
// because go.temporal.io/server does not compile against the bot's SDK
// version; nothing in the bot imports it.
package temporalserver

import (
	_ "go.temporal.io/server/cmd/server"
	_ "go.temporal.io/server/cmd/tools/sql"
)
