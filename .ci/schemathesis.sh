#!/usr/bin/env bash
# Schemathesis against a running server and its own /openapi.json, on a
# game it creates: every operation but the endless stream with a seat's
# token, then the host's operations with the host's token; all checks, the
# stateful phase following the document's links. Run by .ci/run after the
# Rust tests (it uses the binary they built). Installs schemathesis from PyPI
# into a virtualenv under target/ when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/schemathesis-venv
if [ ! -x "$venv/bin/st" ]; then
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
  fi
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "schemathesis==4.32.5"
fi

bin=target/debug/runestone
[ -x "$bin" ] || cargo build --jobs 2 --bin runestone
data=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# No webhook leaves this machine: a generated address is refused in words.
RUNESTONE__STORAGE__PATH="$data" RUNESTONE__STORAGE__RESERVE=0 RUNESTONE__NOTIFY__WEBHOOKS=false RUST_LOG=warn \
  "$bin" serve --host 127.0.0.1 --port "$port" --workers 2 >"$data/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
base="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  curl -sf "$base/healthz" >/dev/null && break
  sleep 0.5
done

# A game with a host, whose first seat's token the run uses.
created=$(curl -sf "$base/api/v1/games" -H 'content-type: application/json' -d '{"ruleset":"bardagi",
  "seats":[{"name":"Ása"},{"name":"Bjarni"},{"name":"Dís"}],"host":{"name":"Host","email":"host@example.org"}}')
field() { printf '%s' "$created" | python3 -c "import json,sys; v=json.load(sys.stdin); print($1)"; }
seat=$(field 'v["seats"][0]["token"]')
host=$(field 'v["host_token"]')
RUNESTONE_GAME=$(field 'v["game_id"]')
export RUNESTONE_GAME

run() {
  "$venv/bin/st" --config-file .ci/schemathesis.toml run "$base/openapi.json" \
    --checks all \
    --exclude-operation-id streamEvents \
    --max-examples "${SCHEMATHESIS_EXAMPLES:-25}" \
    --request-timeout 30 \
    --workers 1 \
    --seed 1 \
    --warnings off \
    "$@"
}
echo "== schemathesis with the first seat's token, every operation but the stream and the MTA's =="
# receiveMail is the operator's mail server's route (its own key, a
# message/rfc822 body schemathesis cannot make); tests/api/replies.rs
# drives it with real messages.
run --header "Authorization: Bearer $seat" --exclude-operation-id receiveMail \
  --exclude-operation-id getNotifications --exclude-operation-id setNotifications
echo "== schemathesis with the first seat's token, its notification settings =="
# Answered only for the token's own game and seat: the id is fixed to the
# game's, so a case meant to send a malformed id sends the good one and is
# answered 200, as in the host's run below: no negative-data check. The two
# link to no other operation: no stateful phase.
run --header "Authorization: Bearer $seat" --exclude-checks negative_data_rejection \
  --phases examples,coverage,fuzzing \
  --include-operation-id getNotifications --include-operation-id setNotifications
echo "== schemathesis with the host's token, the host's operations =="
# The id is fixed to the game's (its token is for no other), so a case
# meant to send a malformed id sends the good one: no negative-data check.
run --header "Authorization: Bearer $host" --exclude-checks negative_data_rejection \
  --include-operation-id rollback --include-operation-id fork --include-operation-id reissueSeatToken \
  --include-operation-id substituteSeat --include-operation-id clockAction --include-operation-id listDeadLetters \
  --include-operation-id retryDeadLetter --include-operation-id getView --include-operation-id getEvents \
  --include-operation-id postMessage --include-operation-id listMessages --include-operation-id hideMessage \
  --include-operation-id getChannel --include-operation-id setChannel
