#!/bin/sh
# temporalio/server reads its PostgreSQL password from POSTGRES_PWD only.
# Take it from the secret file at start, so that it never appears in the
# container's configuration (`docker inspect`), then run the image's own
# entrypoint.
set -eu
: "${POSTGRES_PASSWORD_FILE:?POSTGRES_PASSWORD_FILE is required}"
POSTGRES_PWD=$(cat "$POSTGRES_PASSWORD_FILE")
export POSTGRES_PWD
# TEMPORAL_ENTRYPOINT: make test-production runs this script outside the
# image, where the image's entrypoint is not at its path.
exec "${TEMPORAL_ENTRYPOINT:-/etc/temporal/entrypoint.sh}" "$@"
