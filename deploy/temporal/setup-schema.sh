#!/bin/sh
# One-shot job (temporalio/admin-tools): create or upgrade Temporal's
# PostgreSQL schemas. Every step is idempotent (CREATE DATABASE ignores an
# existing one, setup-schema skips a newer version, update-schema applies
# only what is missing), so it runs on every `docker compose up` and
# upgrades the schema when the pinned Temporal version changes.
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${POSTGRES_PASSWORD_FILE:?POSTGRES_PASSWORD_FILE is required}"
# temporal-sql-tool reads the password from SQL_PASSWORD; it comes from the
# secret file so that it never shows in `docker inspect`.
SQL_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
export SQL_PASSWORD
if [ -z "$SQL_PASSWORD" ]; then
  echo "setup-schema: $POSTGRES_PASSWORD_FILE is empty (see docs/deploy.md, secrets)" >&2
  exit 1
fi
PORT=${DB_PORT:-5432}
# The admin-tools image's copy; make test-production points it at the
# server module's schema/ directory of the same release.
SCHEMA_DIR=${SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}

echo "setup-schema: waiting for PostgreSQL at $POSTGRES_SEEDS:$PORT"
attempt=1
until nc -z -w 5 "$POSTGRES_SEEDS" "$PORT"; do
  if [ "$attempt" -ge 30 ]; then
    echo "setup-schema: PostgreSQL did not answer after $attempt attempts" >&2
    exit 1
  fi
  attempt=$((attempt + 1))
  sleep 2
done

sql() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$PORT" -u "$POSTGRES_USER" "$@"
}
for db in temporal:temporal temporal_visibility:visibility; do
  name=${db%%:*}
  dir=${db##*:}
  echo "setup-schema: database $name"
  sql --db "$name" create
  sql --db "$name" setup-schema -v 0.0
  sql --db "$name" update-schema -d "$SCHEMA_DIR/$dir/versioned"
done
echo "setup-schema: done"
