#!/usr/bin/env bash
# Repeat the full-disk cycle of the fault suite (fill a 16 MB tmpfs while mail
# is due, grow it, SIGKILL, restart, check every acknowledged event, every
# chain and every Message-ID) and print the figures of each trial.
# Needs root (it mounts a tmpfs). Usage: scripts/disk-cycle.sh [TRIALS]
set -euo pipefail
trials="${1:-10}"
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  echo "disk-cycle: needs root to mount a tmpfs" >&2
  exit 1
fi
# Build once, then run that test binary: later edits do not change a run.
bin="$(cargo test --jobs 2 --test api --no-run 2>&1 | grep -o '(target/[^)]*/api-[0-9a-f]*)' | tr -d '()' | tail -1)"
[ -x "$bin" ] || { echo "disk-cycle: could not build the test binary" >&2; exit 1; }
passed=0
failed=0
for i in $(seq 1 "$trials"); do
  out="$("$bin" disk::a_full_disk --nocapture 2>&1)" && ok=1 || ok=0
  figures="$(grep -o 'full disk: .*' <<<"$out" || true)"
  if [ "$ok" = 1 ]; then
    passed=$((passed + 1))
    echo "trial $i: ok; $figures"
  else
    failed=$((failed + 1))
    echo "trial $i: FAILED; $figures"
    grep -E "panicked|assert" <<<"$out" | head -5 | sed 's/^/    /'
  fi
done
echo "disk-cycle: $trials trials, $passed passed, $failed failed"
[ "$failed" = 0 ]
