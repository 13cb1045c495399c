//go:build tools

// Package uiserver pins the Temporal Web UI that compose.yml runs: the
// temporalio/ui image is this ui-server (its assets embedded) started with
// the module's config/docker.yaml. `make test-production` builds it and
// runs it against the real server. Its own module: nothing in the bot
// imports it.
//
// ui-server v2.58.1 requires go.temporal.io/api v1.64.0 and
// github.com/labstack/echo/v4 v4.16.1, which the Go module proxy does not
// serve ("This module version is not available"); go.mod requires each
// minor's later patch that it does serve (v1.64.3, v4.16.5), so this
// build differs from the image's in those two patches.
package uiserver

import _ "github.com/temporalio/ui-server/v2/cmd/server"
