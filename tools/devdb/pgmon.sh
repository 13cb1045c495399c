#!/bin/bash
# Samples the PostgreSQL of a benchmark running on devdb -handler postgresql
# (the first cluster found) every 60 s: table sizes, scans, vacuums, and the
# busiest processes. Usage: tools/devdb/pgmon.sh > /tmp/pgmon.log &
PSQL=/usr/lib/postgresql/15/bin/psql
while true; do
  port=$(ps -eo args | grep -E '^/usr/lib/postgresql/15/bin/postgres -D' | grep -oE ' -p [0-9]+' | head -1 | awk '{print $2}')
  echo "=== $(date +%T) port=$port load $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -n "$port" ]; then
    $PSQL -X -q -h 127.0.0.1 -p $port -U ferretdb -d postgres -At -F' ' -c "select relname, n_live_tup, n_dead_tup, seq_scan, seq_tup_read, idx_scan, coalesce(to_char(last_autovacuum,'HH24:MI:SS'),'-'), coalesce(to_char(last_autoanalyze,'HH24:MI:SS'),'-') from pg_stat_user_tables where n_live_tup+n_dead_tup > 500 order by seq_tup_read desc limit 12" 2>&1
    $PSQL -X -q -h 127.0.0.1 -p $port -U ferretdb -d postgres -At -c "select count(*), state from pg_stat_activity group by state" 2>&1 | tr '\n' ' '; echo
  fi
  top -b -n1 -o %CPU | sed -n 8,13p
  sleep 60
done
