#!/usr/bin/env bash
# The same open-loop durable submit load (benches/load.rs, as scripts/load.sh
# runs it) in one run against three set-ups on this machine: sled (one
# node), PostgreSQL with one node, PostgreSQL with two nodes (the load
# client spreads its connections over both). PostgreSQL runs durably as
# installed (fsync and synchronous_commit on), in a temporary directory with
# a unix socket only, as a non-root user; everything is stopped and removed
# at the end.
#
#   scripts/load-backends.sh                 # 1,000/s, 10 s per phase
#   RATES=500,2000 LOAD_SECONDS=20 scripts/load-backends.sh
#   BACKENDS=pg1,pg2 scripts/load-backends.sh  # some of sled, pg1, pg2
#   SERVER_BIN=path/to/runestone LOAD_BIN=path/to/load-<hash> scripts/load-backends.sh
#                                            # builds already made
#
# Needs cargo and Debian's postgresql package. Traffic stays on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
export RATES="${RATES:-1000}"
backends=",${BACKENDS:-sled,pg1,pg2},"
server_bin=${SERVER_BIN:-target/release/runestone}
[ -n "${SERVER_BIN:-}" ] || cargo build --release -q --jobs 2 --bin runestone
[ -n "${LOAD_BIN:-}" ] || cargo bench -q --jobs 2 --bench load --no-run
load() {
  if [ -n "${LOAD_BIN:-}" ]; then "$LOAD_BIN" "$1"; else cargo bench -q --jobs 2 --bench load -- "$1"; fi
}
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -x "$bin/initdb" ] || { echo "install Debian's postgresql package first" >&2; exit 1; }
dir=$(mktemp -d /tmp/runestone-load.XXXXXX)
chmod 755 "$dir"
as_pg() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
  id -u postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
  mkdir "$dir/pg" && chown postgres "$dir/pg"
  as_pg() { runuser -u postgres -- "$@"; }
else
  mkdir "$dir/pg"
fi
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  as_pg "$bin/pg_ctl" -D "$dir/pg/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
as_pg "$bin/initdb" -A trust -U postgres -D "$dir/pg/data" >/dev/null
as_pg "$bin/pg_ctl" -D "$dir/pg/data" -w -l "$dir/pg/log" \
  -o "-k $dir/pg -c listen_addresses='' -p 5432 -c max_connections=200" start >/dev/null
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')

wait_port() {
  for _ in $(seq 1 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "the server on port $1 did not start" >&2
  exit 1
}

# serve NAME PORT BACKEND [DB]: a release server in the background (the
# load client creates its games from one address: no bound on creations).
serve() {
  local name=$1 port=$2 backend=$3 db=${4:-}
  mkdir -p "$dir/$name"
  RUNESTONE__SERVER__PORT=$port RUNESTONE__STORAGE__PATH="$dir/$name/data" RUST_LOG=warn \
    RUNESTONE__STORAGE__BACKEND=$backend RUNESTONE__STORAGE__URL="${db:+host=$dir/pg port=5432 user=postgres dbname=$db}" \
    RUNESTONE__AUTH__JWT_SECRET=$secret RUNESTONE__ACCESS__CREATES_PER_HOUR=0 \
    "$server_bin" serve >"$dir/$name/server.log" 2>&1 &
  pids+=($!)
  wait_port "$port"
}

stop_all() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  pids=()
}

as_pg "$bin/psql" -h "$dir/pg" -U postgres -qc "CREATE DATABASE one" postgres
as_pg "$bin/psql" -h "$dir/pg" -U postgres -qc "CREATE DATABASE two" postgres

if [[ $backends == *,sled,* ]]; then
  echo "== sled, one node"
  serve sled 18181 sled
  load 18181
  stop_all
fi

if [[ $backends == *,pg1,* ]]; then
  echo "== PostgreSQL, one node"
  serve pg1 18182 postgres one
  load 18182
  stop_all
fi

if [[ $backends == *,pg2,* ]]; then
  echo "== PostgreSQL, two nodes"
  serve pg2a 18183 postgres two
  serve pg2b 18184 postgres two
  load 18183,18184
  stop_all
fi
