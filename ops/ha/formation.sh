#!/usr/bin/env bash
# A pg_auto_failover formation on one machine, for trying high availability (docs/OPERATIONS.md, "High
# availability"): a monitor and two PostgreSQL nodes with synchronous replication, each with its own port under one
# directory, from Debian's packages postgresql-<N>-auto-failover and pg-auto-failover-cli. In production each node
# runs on a machine of its own; the commands are the same, with --hostname set to each machine's name.
#
#   ops/ha/formation.sh start DIR [BASE_PORT]   monitor on BASE_PORT (default 15430), nodes on the next two;
#                                               prints the DATABASE_URL to give every process
#   ops/ha/formation.sh uri DIR                 that DATABASE_URL again
#   ops/ha/formation.sh state DIR               each node's state, as the monitor sees it
#   ops/ha/formation.sh switchover DIR          the primary hands over to the standby (planned maintenance)
#   ops/ha/formation.sh kill-primary DIR [--no-wait]
#                                               SIGKILLs the primary's PostgreSQL and its keeper (a crash), then
#                                               waits until the standby is promoted and takes writes
#   ops/ha/formation.sh rejoin DIR NODE         runs the keeper of a stopped node (node1, node2) again: it rejoins
#                                               as the standby, rewound with pg_rewind where needed
#   ops/ha/formation.sh stop DIR                stops the nodes and the monitor (the data stays in DIR)
#
# pg_autoctl runs as the user `postgres` when this runs as root (PostgreSQL refuses root). HA_FAST=1 makes the
# monitor decide within seconds that a node is gone (for tests: production keeps pg_auto_failover's defaults,
# about 20 s, so that a slow network is not taken for a dead primary).
set -euo pipefail

command="${1:-}"
dir="${2:-}"
[ -n "$command" ] && [ -n "$dir" ] || {
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
# Below the kernel's range of ports for outgoing connections (Linux: 32768-60999): a node that restarts finds its
# port free, never held by some client's connection or a server bound to "any free port" meanwhile.
base_port="${3:-15430}"
user="${HA_APP_USER:-sms}"
database="${HA_DATABASE:-app}"

command -v pg_autoctl >/dev/null || {
  echo "pg_autoctl is missing: apt-get install pg-auto-failover-cli postgresql-15-auto-failover" >&2
  exit 1
}
# The packaged pg_ctl of a PostgreSQL that has the pgautofailover extension (newest first), unless PGCTL says.
pgctl="${PGCTL:-}"
if [ -z "$pgctl" ]; then
  for bin in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
    if [ -f "$bin/../lib/pgautofailover.so" ]; then pgctl="$bin/pg_ctl" && break; fi
  done
fi
[ -x "$pgctl" ] || {
  echo "no PostgreSQL server with the pgautofailover extension: apt-get install postgresql-15-auto-failover" >&2
  exit 1
}

# Everything pg_autoctl keeps (its configuration, state and pid files) lives under DIR, not in a home directory.
as_postgres() {
  local env=(env "XDG_CONFIG_HOME=$dir/config" "XDG_DATA_HOME=$dir/share" "XDG_RUNTIME_DIR=$dir/run" "PG_CONFIG=${pgctl%/pg_ctl}/pg_config")
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "${env[@]}" "$@"; else "${env[@]}" "$@"; fi
}
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
as_postgres mkdir -p "$dir/run"
# The logs belong to postgres, whose keepers append to them (this shell, maybe root, appends too).
for log in monitor node1 node2; do as_postgres touch "$dir/$log.log"; done

node_port() { echo $((base_port + ${1#node})); }
# Each node's port, read back from its own configuration (so that uri and state work whatever BASE_PORT was).
configured_port() {
  local port=""
  for _ in $(seq 1 20); do
    port="$(as_postgres pg_autoctl config get --pgdata "$dir/$1" postgresql.port 2>/dev/null)" && [ -n "$port" ] && break
    sleep 0.5 # its keeper rewriting the file (above)
  done
  echo "$port"
}
app_url() {
  echo "postgres://$user@127.0.0.1:$(configured_port node1),127.0.0.1:$(configured_port node2)/$database?target_session_attrs=read-write"
}
# Runs one node's keeper (or the monitor's) in the background; its output goes to DIR/NAME.log.
run_keeper() {
  as_postgres bash -c "nohup pg_autoctl run --pgdata '$dir/$1' >>'$dir/$1.log' 2>&1 & echo \$! >'$dir/$1.keeper.pid'"
}
state() { # tried again while a keeper rewrites the monitor's configuration file (above)
  local out
  for _ in $(seq 1 10); do
    out="$(as_postgres pg_autoctl show state --pgdata "$dir/monitor" 2>/dev/null)" && echo "$out" && return 0
    sleep 0.5
  done
  as_postgres pg_autoctl show state --pgdata "$dir/monitor"
}
wait_for() { # wait_for WHAT SECONDS: until state shows a primary and a secondary (or WHAT), at most SECONDS
  local deadline=$((SECONDS + $2))
  until state 2>/dev/null | grep -Eq "$1"; do
    [ $SECONDS -lt $deadline ] || {
      echo "the formation did not reach: $1" >&2
      state >&2 || true
      exit 1
    }
    sleep 1
  done
}
primary_node() { state | awk -F'|' '$6 ~ /primary/ && $7 ~ /primary/ { gsub(/ /, "", $1); print $1 }' | head -1; }

case "$command" in
start)
  if [ ! -d "$dir/monitor" ]; then
    as_postgres pg_autoctl create monitor --pgdata "$dir/monitor" --pgport "$base_port" --hostname 127.0.0.1 \
      --auth trust --no-ssl --pgctl "$pgctl" >>"$dir/monitor.log" 2>&1
    if [ "${HA_FAST:-}" = 1 ]; then
      # Seconds, not the defaults' 20: a node is unhealthy after 3 s without a health check or a keeper's report.
      for setting in "pgautofailover.health_check_period = 1000" "pgautofailover.health_check_timeout = 1000" \
        "pgautofailover.health_check_max_retries = 1" "pgautofailover.health_check_retry_delay = 500" \
        "pgautofailover.node_considered_unhealthy_timeout = 3000" "pgautofailover.primary_demote_timeout = 5000"; do
        echo "$setting" | as_postgres tee -a "$dir/monitor/postgresql.conf" >/dev/null
      done
    fi
  fi
  run_keeper monitor
  # A keeper rewrites its configuration file as it starts: a read at that moment fails, and is tried again.
  until monitor_uri="$(as_postgres pg_autoctl show uri --pgdata "$dir/monitor" --formation monitor 2>/dev/null)"; do sleep 0.5; done
  for node in node1 node2; do
    if [ ! -d "$dir/$node" ]; then
      # One node after the other: the first becomes the primary, the second is cloned from it.
      as_postgres pg_autoctl create postgres --pgdata "$dir/$node" --pgport "$(node_port "$node")" --hostname 127.0.0.1 \
        --name "$node" --dbname "$database" --auth trust --no-ssl --pgctl "$pgctl" --monitor "$monitor_uri" >>"$dir/$node.log" 2>&1
    fi
    run_keeper "$node"
    [ "$node" = node2 ] || wait_for "primary *\| *primary|single *\| *single" 120
  done
  wait_for "secondary *\| *secondary" 120
  # The application's own role, owner of its database (on the primary; replication carries it to the standby).
  primary="$(primary_node)"
  as_postgres psql -qAt -h 127.0.0.1 -p "$(configured_port "$primary")" -d "$database" -c \
    "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$user') THEN CREATE ROLE \"$user\" LOGIN; END IF; END \$\$;
     ALTER DATABASE \"$database\" OWNER TO \"$user\";"
  app_url
  ;;
uri) app_url ;;
state) state ;;
switchover) as_postgres pg_autoctl perform switchover --pgdata "$dir/monitor" ;;
kill-primary)
  primary="$(primary_node)"
  [ -n "$primary" ] || {
    echo "no primary to kill" >&2
    exit 1
  }
  pid="$(head -1 "$dir/$primary/postmaster.pid")"
  # The keeper and its children first (its "start/stop postgres" child would start PostgreSQL again), then the
  # postmaster's children and the postmaster.
  keeper="$(cat "$dir/$primary.keeper.pid")"
  kill -STOP "$keeper" 2>/dev/null || true
  pkill -KILL -P "$keeper" 2>/dev/null || true
  kill -KILL "$keeper" 2>/dev/null || true
  pkill -KILL -P "$pid" 2>/dev/null || true
  kill -KILL "$pid" 2>/dev/null || true
  echo "$primary"
  if [ "${3:-}" != "--no-wait" ]; then
    other=node1
    [ "$primary" = node1 ] && other=node2
    wait_for "^ *$other .*read-write *\| *(wait_primary|primary) *\|" 180
  fi
  ;;
rejoin)
  node="${3:?rejoin DIR NODE}"
  base_port="" # not needed: the node keeps its configuration
  run_keeper "$node"
  wait_for "$node .*secondary *\| *secondary" 180
  ;;
stop)
  for node in node2 node1 monitor; do
    [ -d "$dir/$node" ] && as_postgres pg_autoctl stop --pgdata "$dir/$node" 2>/dev/null || true
  done
  # Wait for the keepers to end (they stop their PostgreSQL first).
  for node in node2 node1 monitor; do
    pid_file="$dir/$node.keeper.pid"
    [ -f "$pid_file" ] || continue
    pid="$(cat "$pid_file")"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  done
  ;;
*)
  echo "unknown command: $command" >&2
  exit 2
  ;;
esac
