#!/usr/bin/env bash
# Load script for DESIGN.md §7 ("a submit answered in a few milliseconds at
# thousands of requests per second on two cores"): starts the release server
# on a fresh data directory on 127.0.0.1, creates 60 four-seat Bardagi games,
# then drives it with wrk (Debian's package) for 10 s each: seats' views, and
# durable submits (standing orders, each an appended and flushed event).
# Needs: wrk, python3. Sends traffic only to 127.0.0.1; stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "install wrk (apt-get install wrk)"; exit 1; }
cargo build --release -q
dir=$(mktemp -d)
port=${PORT:-18080}
RUNESTONE__SERVER__PORT=$port RUNESTONE__STORAGE__PATH="$dir/data" RUST_LOG=warn \
  target/release/runestone serve >"$dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT
sleep 1
python3 - "$port" "$dir" <<'PY'
import json, sys, urllib.request
port, dir = sys.argv[1], sys.argv[2]
targets = []
for _ in range(60):
    body = json.dumps({"ruleset": "bardagi", "seats": [{"name": f"P{i}"} for i in range(4)]}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/games", data=body, headers={"content-type": "application/json"})
    created = json.load(urllib.request.urlopen(req))
    targets += [(created["game_id"], s["token"]) for s in created["seats"]]
head = "targets = {\n" + ",\n".join('{"%s","%s"}' % t for t in targets) + "\n}\ncounter = 0\n"
pick = "  counter = counter + 1\n  local t = targets[(counter % #targets) + 1]\n"
open(f"{dir}/view.lua", "w").write(head + "request = function()\n" + pick +
    '  return wrk.format("GET", "/api/v1/games/" .. t[1] .. "/view", {["Authorization"] = "Bearer " .. t[2]})\nend\n')
open(f"{dir}/submit.lua", "w").write(head + "request = function()\n" + pick +
    '  return wrk.format("POST", "/api/v1/games/" .. t[1] .. "/commands", {["Authorization"] = "Bearer " .. t[2], ["Content-Type"] = "application/json"}, \'{"command":{"type":"SetOrders","orders":{"buy_axes":true}}}\')\nend\n'
    'response = function(status, headers, body)\n  if status ~= 200 then io.write(status .. " ") end\nend\n')
PY
echo "== views (with legal commands) =="
wrk -t2 -c32 -d10s -s "$dir/view.lua" --latency "http://127.0.0.1:$port"
echo "== durable submits =="
wrk -t2 -c32 -d10s -s "$dir/submit.lua" --latency "http://127.0.0.1:$port"
