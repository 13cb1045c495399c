#!/bin/sh
# One-shot job (temporalio/admin-tools): once the server answers, create the
# bot's namespace and its search attributes if they are missing, and wait
# until the server lists them. The worker waits for this job
# (service_completed_successfully), so its first workflows find both.
# The temporal CLI reads TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE itself.
set -eu

: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS is required}"
: "${TEMPORAL_NAMESPACE:?TEMPORAL_NAMESPACE is required}"
RETENTION=${NAMESPACE_RETENTION:-168h}

# Keep in step with workflows.SearchAttributes() (a test in deploy/ checks).
SEARCH_ATTRIBUTES="EventKind:Keyword EventKey:Keyword IncidentID:Keyword ComponentIDs:KeywordList
DeliveryState:Keyword PendingSubscribers:Int FailedSubscribers:Int"

quietly() { "$@" >/dev/null 2>&1; }

retry() {
  what=$1
  shift
  attempt=1
  until "$@"; do
    if [ "$attempt" -ge 60 ]; then
      echo "setup-namespace: $what: giving up after $attempt attempts" >&2
      exit 1
    fi
    attempt=$((attempt + 1))
    sleep 2
  done
}

echo "setup-namespace: waiting for the Temporal frontend at $TEMPORAL_ADDRESS"
retry "cluster health" quietly temporal operator cluster health

# Created, or there already (another run got there first).
create_namespace() {
  temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention "$RETENTION" ||
    temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1
}

# seconds DURATION: 168h, 7d, 90m or 3600s in seconds; empty otherwise.
seconds() {
  n=${1%?}
  case $n in '' | *[!0-9]*) return ;; esac
  case $1 in
  *d) echo $((n * 86400)) ;;
  *h) echo $((n * 3600)) ;;
  *m) echo $((n * 60)) ;;
  *s) echo "$n" ;;
  esac
}

if temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1; then
  echo "setup-namespace: namespace $TEMPORAL_NAMESPACE exists"
  # TEMPORAL_RETENTION changed since the namespace was created: apply it
  # (it was read at creation only, and a later change silently ignored).
  have=$(temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" -o json |
    sed -n 's/.*"workflowExecutionRetentionTtl": *"\([0-9]*\)s".*/\1/p' | head -n 1)
  want=$(seconds "$RETENTION")
  if [ -z "$want" ]; then
    echo "setup-namespace: NAMESPACE_RETENTION=$RETENTION: use a number of days, hours, minutes or seconds (168h, 7d)" >&2
    exit 1
  fi
  if [ "$have" != "$want" ]; then
    echo "setup-namespace: retention of $TEMPORAL_NAMESPACE: ${have:-unknown} s, now $RETENTION ($want s)"
    retry "update the retention of $TEMPORAL_NAMESPACE" temporal operator namespace update --namespace "$TEMPORAL_NAMESPACE" --retention "$RETENTION"
  fi
else
  echo "setup-namespace: creating namespace $TEMPORAL_NAMESPACE (retention $RETENTION)"
  # A frontend that answers health can still fail the first writes while
  # the other services join: retry, as every step here does.
  retry "create namespace $TEMPORAL_NAMESPACE" create_namespace
fi
# A new namespace reaches every service's cache within seconds.
retry "namespace $TEMPORAL_NAMESPACE" quietly temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE"

have_attribute() {
  temporal operator search-attribute list --namespace "$TEMPORAL_NAMESPACE" | grep -qw "$1"
}
for sa in $SEARCH_ATTRIBUTES; do
  name=${sa%%:*}
  type=${sa##*:}
  if ! have_attribute "$name"; then
    echo "setup-namespace: adding search attribute $name ($type)"
    retry "search attribute $name" quietly temporal operator search-attribute create \
      --namespace "$TEMPORAL_NAMESPACE" --name "$name" --type "$type"
  fi
  retry "search attribute $name listed" have_attribute "$name"
done
echo "setup-namespace: done"
