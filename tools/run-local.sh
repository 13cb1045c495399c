#!/usr/bin/env bash
# make run: Temporal dev server + FerretDB + `statusbot all`, state in .data/.
# The work is done by tools/runlocal (Go): it reads .env as docker compose
# does, says which Temporal and MongoDB the bot uses, refuses busy ports,
# watches every process and stops all of them on Ctrl-C or when one exits.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p bin
go build -o bin/runlocal ./tools/runlocal
# Before the long first build: a missing token is said at once.
bin/runlocal -preflight

if [[ ! -x bin/temporal || ! -x bin/devdb ]]; then
  echo "First run: building the Temporal CLI and the FerretDB helper. This takes several minutes (10-20 on 2 cores); later runs reuse them."
fi
make --no-print-directory tools build
exec bin/runlocal "$@"
