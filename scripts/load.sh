#!/usr/bin/env bash
# Open-loop load (DESIGN.md §7, "a submit answered in a few milliseconds at
# thousands of requests per second on two cores"): starts the release server
# on a fresh data directory on 127.0.0.1, creates 120 four-seat Bardagi
# games, then sends requests at a fixed rate whatever the server does
# (benches/load.rs): first GET /healthz (the reference: what the machine and
# the HTTP layer cost), then durable submits (standing orders, each an
# appended and flushed event), and prints p50, p99 and max latency, each
# measured from the instant the request was due.
#
#   scripts/load.sh                      # 2,000/s, 10 s per phase
#   RATES=2000,4000,6000 scripts/load.sh # one line per rate and phase
#   LOAD_SECONDS=20 scripts/load.sh
#   MAIL=1 scripts/load.sh               # and the submits again while the
#                                        # outbox sends over SMTP to a sink
#   SERVER_BIN=path/to/runestone scripts/load.sh  # another build's server
#   LOAD_BIN=path/to/load-<hash> scripts/load.sh  # a load client already
#                                        # built (the bench binary), no cargo
#
# With MAIL=1 the server sends its mail over SMTP to 127.0.0.1:$PORT+1, where
# the load tool listens as a sink that accepts and discards every message
# (benches/load.rs says how the backlog of mail is made).
#
# Needs only cargo. Sends traffic only to 127.0.0.1; stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
server_bin=${SERVER_BIN:-target/release/runestone}
if [ -z "${SERVER_BIN:-}" ]; then
  cargo build --release -q --jobs 2 --bin runestone
fi
if [ -z "${LOAD_BIN:-}" ]; then
  cargo bench -q --jobs 2 --bench load --no-run
fi
dir=$(mktemp -d)
port=${PORT:-18080}
if [ -n "${MAIL:-}" ]; then
  export MAIL_SINK_PORT=$((port + 1))
  export RUNESTONE__MAIL__TRANSPORT=smtp RUNESTONE__MAIL__SMTP_HOST=127.0.0.1
  export RUNESTONE__MAIL__SMTP_PORT=$MAIL_SINK_PORT
fi
RUNESTONE__SERVER__PORT=$port RUNESTONE__STORAGE__PATH="$dir/data" RUST_LOG=warn \
  "$server_bin" serve >"$dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 300); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
if [ -n "${LOAD_BIN:-}" ]; then
  "$LOAD_BIN" "$port"
else
  cargo bench -q --jobs 2 --bench load -- "$port"
fi
