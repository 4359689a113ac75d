#!/usr/bin/env python3
"""Writes the tree form's fixed table (engine/src/tree-v1.txt) from the golden logs.

Run once, when the table was made; the table is never edited after (every stored
tree depends on it: engine/src/tree.rs). Kept as the record of how it was made:
`python3 scripts/tree-table.py events > engine/src/tree-v1.txt`.

The values taken: each golden event's game event, redacted form and command.
Shapes: every object's key list seen at least twice, the most frequent first,
written in stored order (`type` first, then text order). Strings: those seen in
at least two logs (names of variants and fields, not players' names or seeds),
at most 40 bytes, the most frequent first.
"""
import json
import os
import re
import sys
from collections import Counter, defaultdict

root = sys.argv[1]
shapes = Counter()
strings = Counter()
files_of = defaultdict(set)


def walk(v, f):
    if isinstance(v, dict):
        shapes[tuple(sorted(v))] += 1
        for x in v.values():
            walk(x, f)
    elif isinstance(v, list):
        for x in v:
            walk(x, f)
    elif isinstance(v, str):
        strings[v] += 1
        files_of[v].add(f)


paths = []
for d, _, names in os.walk(root):
    paths += [os.path.join(d, n) for n in names if n.endswith(".jsonl")]
for path in sorted(paths):
    f = os.path.relpath(path, root)
    for line in open(path, encoding="utf-8"):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if not isinstance(e, dict) or "body" not in e:
            continue
        if e["body"].get("kind") == "game":
            walk(e["body"]["event"], f)
        if e.get("redacted") is not None:
            walk(e["redacted"], f)
        d = e.get("decision") or {}
        if d.get("command") is not None:
            walk(d["command"], f)

hexlike = re.compile(r"^[0-9a-f]{16,}$")
out = []
for s, n in sorted(strings.items(), key=lambda kv: (-kv[1], kv[0])):
    if len(files_of[s]) >= 2 and 0 < len(s.encode()) <= 40 and not hexlike.match(s):
        out.append(json.dumps(s, ensure_ascii=False, separators=(",", ":")))
for keys, n in sorted(shapes.items(), key=lambda kv: (-kv[1], kv[0])):
    if n >= 2:
        stored = sorted(keys, key=lambda k: (k != "type", k))
        out.append(json.dumps(stored, ensure_ascii=False, separators=(",", ":")))
print("\n".join(out))
