#!/usr/bin/env bash
# make run: Temporal dev server + FerretDB + `statusbot all`, state in .data/.
# Ctrl-C stops all three.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -f .env ]]; then
  set -a; source .env; set +a
fi
if [[ -z "${TELEGRAM_BOT_TOKEN:-}" ]]; then
  cat >&2 <<'MSG'
TELEGRAM_BOT_TOKEN is not set.

  1. In Telegram, talk to @BotFather, send /newbot and follow the steps.
  2. Copy the token it gives you (it looks like 123456789:AA...).
  3. cp .env.example .env   and set   TELEGRAM_BOT_TOKEN=<your token>   in .env
  4. make run
MSG
  exit 2
fi

if [[ ! -x bin/temporal || ! -x bin/devdb ]]; then
  echo "First run: building the Temporal CLI and the FerretDB helper. This takes several minutes (10-20 on 2 cores); later runs reuse them."
fi
make --no-print-directory tools build

mkdir -p .data/ferretdb
TEMPORAL_PORT=${TEMPORAL_PORT:-7233}
UI_PORT=${TEMPORAL_UI_PORT:-8233}
DEVDB_ADDR=${DEVDB_ADDR:-127.0.0.1:27017}
pids=()
cleanup() {
  trap - INT TERM EXIT
  echo "Stopping..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  echo "Stopped."
}
trap cleanup INT TERM EXIT

bin/temporal server start-dev --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$UI_PORT" \
  --db-filename .data/temporal.db --log-level warn \
  --dynamic-config-value matching.numTaskqueueReadPartitions=1 --dynamic-config-value matching.numTaskqueueWritePartitions=1 \
  --search-attribute EventKind=Keyword --search-attribute EventKey=Keyword --search-attribute IncidentID=Keyword \
  --search-attribute ComponentIDs=KeywordList --search-attribute DeliveryState=Keyword \
  --search-attribute PendingSubscribers=Int --search-attribute FailedSubscribers=Int \
  >.data/temporal.log 2>&1 &
pids+=($!)
rm -f .data/mongodb.uri
bin/devdb -dir .data/ferretdb -listen "$DEVDB_ADDR" -uri-file .data/mongodb.uri >/dev/null 2>.data/ferretdb.log &
pids+=($!)

for _ in $(seq 1 60); do
  [[ -s .data/mongodb.uri ]] && bin/temporal operator cluster health --address "127.0.0.1:$TEMPORAL_PORT" >/dev/null 2>&1 && break
  sleep 1
done
export MONGODB_URI=${MONGODB_URI:-$(cat .data/mongodb.uri)}
export TEMPORAL_ADDRESS=${TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}
echo "Temporal Web UI: http://localhost:$UI_PORT   (logs in .data/)"
echo "Health: http://${HEALTH_ADDR:-127.0.0.1:8080}/healthz   Ctrl-C stops everything."
bin/statusbot all &
pids+=($!)
wait "${pids[-1]}"
