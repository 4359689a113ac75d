#!/usr/bin/env python3
"""Local search for a fairer Bardagi board for one player count.

Usage: fairness_search.py FAIRNESS_BINARY START_BOARD PLAYERS GAMES STEPS SEED OUT_BOARD

FAIRNESS_BINARY is the built `fairness` example (`cargo build --release -p
runestone-bardagi --example fairness`, then target/release/examples/fairness),
START_BOARD a board file without a setup table. Each step proposes one change
(a home moved to another harbour area, its old area taking that area's kind;
two areas' kinds swapped, the number of each kind kept; a camp moved to a
neighbouring area; harbours, rivers, sacred sites and cells unchanged),
measures it on GAMES bot games with the example's fixed seeds, and keeps it
when the score falls: the furthest colour's points from an even share, plus
a twentieth of the root of the summed squared deviations (so that a change
helping a colour counts before the furthest one moves). Every step is printed;
the best board so far is written to OUT_BOARD. The rows a fair board needs
then go into the board's [[setup]] table (RULES-NOTES.md, "Fairness of the
Summer board").
"""
import collections
import copy
import random
import re
import subprocess
import sys
import tempfile
import tomllib

KIND_NAMES = {
    "forest": "Forest", "sheep": "Sheep", "cattle": "Cattle", "village": "Village",
    "gold_mine": "Gold mine", "quarry": "Quarry", "iron_mine": "Iron mine",
    "sacred": "Sacred site", "camp": "Barbarian camp",
}
LINE = re.compile(r"(\d) players, (\d+) games: (.*?) \(even share ([\d.]+)%, furthest ([\d.]+) points")
DIRS = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]


def load(path):
    text = open(path).read()
    return text[: text.index("[[area]]")], tomllib.loads(text)["area"]


def render(prefix, areas):
    out = [prefix.rstrip("\n") + "\n"]
    for a in areas:
        s = '\n[[area]]\nid = %d\nname = "%s"\nkind = "%s"\n' % (a["id"], a["name"], a["kind"])
        if a.get("colour"):
            s += 'colour = "%s"\n' % a["colour"]
        if a.get("harbour"):
            s += "harbour = true\n"
        s += "cells = [%s]\n" % ", ".join("[%d, %d]" % (c[0], c[1]) for c in a["cells"])
        out.append(s)
    return "".join(out)


def rename(a):
    a["name"] = a["colour"].capitalize() + " home" if a["kind"] == "home" else "%s %d" % (KIND_NAMES[a["kind"]], a["id"])


def measure(binary, text, players, games):
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        f.write(text)
        f.flush()
        p = subprocess.run([binary, str(games), str(players), f.name], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        m = LINE.match(line)
        if m:
            rates = {k: float(v) for k, v in re.findall(r"(\w+) ([\d.]+)%", m.group(3))}
            even = float(m.group(4))
            rms = sum((v - even) ** 2 for v in rates.values()) ** 0.5
            return float(m.group(5)) + 0.05 * rms, rates
    raise RuntimeError(p.stderr[-500:])


def main():
    binary, start, players, games, steps, seed, out = sys.argv[1:8]
    players, games, steps = int(players), int(games), int(steps)
    rng = random.Random(int(seed))
    prefix, areas = load(start)
    owner = {tuple(c): a["id"] for a in areas for c in a["cells"]}
    near = collections.defaultdict(set)
    for a in areas:
        for c in a["cells"]:
            for dq, dr in DIRS:
                j = owner.get((c[0] + dq, c[1] + dr))
                if j is not None and j != a["id"]:
                    near[a["id"]].add(j)

    def propose(ar):
        ar = copy.deepcopy(ar)
        if rng.random() < 0.15:
            home = rng.choice([a for a in ar if a["kind"] == "home"])
            to = rng.choice([a for a in ar if a.get("harbour") and a["kind"] not in ("home", "sacred", "camp")])
            home["kind"], to["kind"] = to["kind"], "home"
            to["colour"] = home.pop("colour")
            rename(home)
            rename(to)
            return ar, "home %s to %d" % (to["colour"], to["id"])
        free = [a for a in ar if a["kind"] not in ("home", "sacred")]
        a = rng.choice(free)
        if a["kind"] == "camp":
            other = [ar[j] for j in near[a["id"]] if ar[j]["kind"] not in ("home", "sacred", "camp")]
        else:
            other = [b for b in free if b["kind"] not in (a["kind"], "camp")]
        if not other:
            return None, None
        b = rng.choice(other)
        a["kind"], b["kind"] = b["kind"], a["kind"]
        rename(a)
        rename(b)
        return ar, "swap %d %d" % (a["id"], b["id"])

    best, (score, rates) = areas, measure(binary, render(prefix, areas), players, games)
    print("start", round(score, 2), rates, flush=True)
    path = []
    for step in range(steps):
        new, what = propose(best)
        if new is None:
            continue
        try:
            s, r = measure(binary, render(prefix, new), players, games)
        except RuntimeError as e:
            print(step, "invalid", what, e, flush=True)
            continue
        if s < score:
            best, score = new, s
            path.append(what)
            open(out, "w").write(render(prefix, best))
            print(step, "KEPT", what, round(s, 2), r, "| path:", "; ".join(path), flush=True)
        else:
            print(step, "dropped", what, round(s, 2), r, flush=True)


if __name__ == "__main__":
    main()
