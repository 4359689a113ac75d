#!/usr/bin/env bash
# Memory after touching many games: starts the release server on a
# fresh data directory on 127.0.0.1, creates TOUCH_GAMES four-seat Bardagi
# games (default 10,000), plays TOUCH_MOVES commands in each (default 16),
# plays TOUCH_PLAYED of them (default 0) through TOUCH_ROUNDS rounds (default
# 2) as the bot would, views each one (benches/load.rs), then prints the
# server's resident memory (VmRSS), its idle memory before, and what it says
# it holds (runestone_games_cached, the folded games' saved size).
#
#   scripts/rss.sh
#   TOUCH_PLAYED=1000 scripts/rss.sh   # a thousand of the games played two rounds
#   RUNESTONE__STORAGE__CACHE_BYTES=8MB RUNESTONE__STORAGE__STORE_CACHE=16MB scripts/rss.sh
#   SERVER_BIN=path/to/runestone scripts/rss.sh   # another build's server
#
# Needs only cargo and Linux's /proc. Sends traffic only to 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
server_bin=${SERVER_BIN:-target/release/runestone}
if [ -z "${SERVER_BIN:-}" ]; then
  cargo build --release -q --jobs 2 --bin runestone
fi
cargo bench -q --jobs 2 --bench load --no-run
dir=$(mktemp -d)
port=${PORT:-18090}
RUNESTONE__SERVER__PORT=$port RUNESTONE__STORAGE__PATH="$dir/data" RUST_LOG=warn \
  "$server_bin" serve >"$dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 300); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
rss() { awk '/^VmRSS/ {printf "%.0f MB", $2 / 1024}' "/proc/$server/status"; }
echo "idle: $(rss)"
TOUCH_GAMES=${TOUCH_GAMES:-10000} cargo bench -q --jobs 2 --bench load -- "$port"
echo "after: $(rss)"
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /metrics HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n' >&3
grep -E '^runestone_(games_cached|games_cached_bytes|cache)' <&3 || true
du -sh "$dir/data" | awk '{print "data directory: " $1}'
