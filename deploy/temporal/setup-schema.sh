#!/bin/sh
# One-shot job (temporalio/admin-tools): create or upgrade Temporal's
# PostgreSQL schemas. Every step is idempotent (CREATE DATABASE ignores an
# existing one, setup-schema skips a newer version, update-schema applies
# only what is missing), so it runs on every `docker compose up` and
# upgrades the schema when the pinned Temporal version changes.
#
# Temporal supports upgrading one minor version at a time, from the latest
# patch of the current minor. This job refuses any other jump before it
# changes anything, and says which steps to take (docs/deploy.md,
# "Upgrading Temporal"). It knows where the cluster comes from by the
# release it records after each run (database temporal_release), or, on a
# cluster set up before it recorded one, by the schema version.
set -eu

# Each minor version's latest patch and the schema versions it ships
# (temporal, visibility), from the Go module proxy's releases on the day
# compose.yml's pin moved. The pin and the minor before it must be here
# (deploy/schema_test.go checks).
RELEASES="1.30.9:1.18:1.13 1.31.5:1.19:1.14 1.32.2:1.19:1.14"

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
# The server's own variables for its database names.
DB_TEMPORAL=${DBNAME:-temporal}
DB_VISIBILITY=${VISIBILITY_DBNAME:-temporal_visibility}
DB_RELEASE=${RELEASE_DBNAME:-temporal_release}

# This image's release: "temporal-sql-tool version 1.32.2".
RELEASE=$(temporal-sql-tool --version | sed -n 's/.*version \([0-9][0-9.]*\).*/\1/p')
if [ -z "$RELEASE" ]; then
  echo "setup-schema: cannot tell this image's Temporal release (temporal-sql-tool --version)" >&2
  exit 1
fi

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

# ver_lt A B: dotted version A is lower than B (1.9 < 1.19 < 1.31.5).
ver_lt() {
  a=$1
  b=$2
  while [ -n "$a$b" ]; do
    x=${a%%.*}
    y=${b%%.*}
    [ "${x:-0}" -lt "${y:-0}" ] && return 0
    [ "${x:-0}" -gt "${y:-0}" ] && return 1
    case $a in *.*) a=${a#*.} ;; *) a= ;; esac
    case $b in *.*) b=${b#*.} ;; *) b= ;; esac
  done
  return 1
}

minor() { echo "$1" | cut -d. -f1-2; }

# schema_version DB DIR: the version recorded in DB, empty when it has
# none (no such database, or no schema yet). temporal-sql-tool has no
# query for it; asked to go down to 0.0, it names the version it is at.
schema_version() {
  out=$(sql --db "$1" update-schema -d "$2" --version 0.0 2>&1) || true
  v=$(printf '%s\n' "$out" | sed -n "s/.*start version '\([0-9][0-9.]*\)' must be less than.*/\1/p" | head -n 1)
  if [ -z "$v" ] && printf '%s\n' "$out" | grep -q "Start version '0.0' is equal"; then
    v=0.0
  fi
  echo "$v"
}

# The release record: a versioned "schema" of one step per release.
RELEASE_STEPS=$(mktemp -d)
trap 'rm -rf "$RELEASE_STEPS"' EXIT
mkdir "$RELEASE_STEPS/v$RELEASE"
# The tool runs only CREATE, ALTER, INSERT, DROP or DO statements.
echo "CREATE TABLE IF NOT EXISTS releases (release VARCHAR(64) PRIMARY KEY);" >"$RELEASE_STEPS/v$RELEASE/release.sql"
printf '{"CurrVersion": "%s", "MinCompatibleVersion": "0.0", "Description": "Temporal %s set up this cluster (deploy/temporal/setup-schema.sh)", "SchemaUpdateCqlFiles": ["release.sql"]}\n' \
  "$RELEASE" "$RELEASE" >"$RELEASE_STEPS/v$RELEASE/manifest.json"

# known MINOR FIELD: the table's entry for a minor version (FIELD 1: its
# latest patch, 2: its schema, 3: its visibility schema); empty if unknown.
known() {
  for r in $RELEASES; do
    if [ "$(minor "${r%%:*}")" = "$1" ]; then
      echo "$r" | cut -d: -f"$2"
      return
    fi
  done
}

# steps FROM: the releases to go through from FROM (a release, or a minor
# version) to this one: the latest patch of FROM's minor, then of each
# minor after it.
steps() {
  m=$(echo "$1" | cut -d. -f2)
  last=$(echo "$RELEASE" | cut -d. -f2)
  out=""
  while [ "$m" -lt "$last" ]; do
    latest=$(known "1.$m" 1)
    latest=${latest:-"1.$m.x (its latest patch)"}
    if [ "$latest" != "$1" ]; then out="$out -> $latest"; fi
    m=$((m + 1))
  done
  echo "$out -> $RELEASE" | sed 's/^ -> //'
}

refuse() {
  {
    echo "setup-schema: refusing to upgrade Temporal $1 to $RELEASE: $2."
    echo "setup-schema: Temporal supports one minor version at a time, from the latest patch of the current one."
    echo "setup-schema: nothing was changed. Upgrade in steps: $3,"
    echo "setup-schema: each time setting temporalio/server and temporalio/admin-tools to that release in compose.yml,"
    echo "setup-schema: then docker compose up -d, and waiting until the server is healthy (docs/deploy.md, \"Upgrading Temporal\")."
  } >&2
  exit 1
}

current=$(schema_version "$DB_TEMPORAL" "$SCHEMA_DIR/temporal/versioned")
current_visibility=$(schema_version "$DB_VISIBILITY" "$SCHEMA_DIR/visibility/versioned")
recorded=$(schema_version "$DB_RELEASE" "$RELEASE_STEPS")
to=$(minor "$RELEASE")
previous=1.$(($(echo "$RELEASE" | cut -d. -f2) - 1))
if [ -z "$current" ] || [ "$current" = 0.0 ]; then
  echo "setup-schema: a new cluster: Temporal $RELEASE's schema"
elif [ -n "$recorded" ] && [ "$recorded" != 0.0 ]; then
  from=$(minor "$recorded")
  latest=$(known "$from" 1)
  if ver_lt "$to" "$from"; then
    refuse "$recorded (recorded)" "the cluster runs a newer minor version, and Temporal has no downgrades" \
      "restore the backup taken before the upgrade to $recorded, or pin $recorded again"
  elif ver_lt "$from" "$previous"; then
    refuse "$recorded (recorded)" "that skips a minor version" "$(steps "$recorded")"
  elif [ "$from" = "$previous" ] && [ -n "$latest" ] && ver_lt "$recorded" "$latest"; then
    refuse "$recorded (recorded)" "$recorded is not the latest patch of $from" "$(steps "$recorded")"
  fi
  echo "setup-schema: Temporal $recorded (recorded) to $RELEASE: supported"
else
  # Set up before the release was recorded: the schema version tells the
  # minor version apart when it changed, not the patch.
  need=$(known "$previous" 2)
  need_visibility=$(known "$previous" 3)
  if [ -z "$need" ]; then
    echo "setup-schema: schema $current, no release recorded, and $previous's schema is not known here: cannot check the jump; upgrading to $RELEASE"
  elif ver_lt "$current" "$need" || { [ -n "$current_visibility" ] && ver_lt "$current_visibility" "$need_visibility"; }; then
    # The newest minor known to ship this schema.
    from=""
    for r in $RELEASES; do
      if [ "$(echo "$r" | cut -d: -f2)" = "$current" ]; then from=$(minor "${r%%:*}"); fi
    done
    refuse "with schema $current (visibility ${current_visibility:-none}, no release recorded)" \
      "$previous ships schema $need ($need_visibility): the cluster runs ${from:-a release older than $previous} or older, so this skips a minor version" \
      "$(steps "${from:-1.$(($(echo "$previous" | cut -d. -f2) - 1))}") (from an older minor, each minor's latest patch first)"
  else
    echo "setup-schema: schema $current (no release recorded yet): $previous's or $to's; upgrading to $RELEASE"
  fi
fi

for db in "$DB_TEMPORAL:temporal" "$DB_VISIBILITY:visibility"; do
  name=${db%%:*}
  dir=${db##*:}
  echo "setup-schema: database $name"
  sql --db "$name" create
  sql --db "$name" setup-schema -v 0.0
  sql --db "$name" update-schema -d "$SCHEMA_DIR/$dir/versioned"
  echo "setup-schema: $name at schema $(schema_version "$name" "$SCHEMA_DIR/$dir/versioned")"
done
sql --db "$DB_RELEASE" create
sql --db "$DB_RELEASE" setup-schema -v 0.0
sql --db "$DB_RELEASE" update-schema -d "$RELEASE_STEPS"
echo "setup-schema: done: Temporal $RELEASE recorded in database $DB_RELEASE"
