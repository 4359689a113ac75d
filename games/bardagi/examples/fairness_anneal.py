#!/usr/bin/env python3
"""Simulated annealing for a fairer Bardagi board for one player count.

Usage:
  fairness_anneal.py anneal FAIRNESS_BINARY START_BOARD PLAYERS GAMES STEPS SEED OUT_BOARD [T0]
  fairness_anneal.py revert FAIRNESS_BINARY START_BOARD PLAYERS GAMES STEPS SEED OUT_BOARD REFERENCE SLACK

FAIRNESS_BINARY is the built `fairness` example (`cargo build --release -p
runestone-bardagi --example fairness`, then target/release/examples/fairness);
START_BOARD a board file whose areas as listed are the board for PLAYERS
clans (its setup rows are written back unchanged, the search changes the
areas as listed). Each board is measured on GAMES bot games with the
example's fixed seeds and scored (lower is better) by the furthest colour's
points from an even share, plus a twentieth of the root of the summed squared
deviations, plus 60 times the spread of the colours' mean final glory (its
standard deviation over its mean: far less noisy than win counts). Boards with
the same land graph, kinds and homes are measured once.

`anneal` proposes one change a step: two areas' kinds swapped (a camp only
with a neighbouring area; homes and sacred sites never), a home moved to a
harbour area within three land steps (its old area taking that area's kind),
or one boundary cell moved from an area to a neighbouring one where that
changes which areas touch (each area kept in one piece of 5 to 10 cells,
every river still between its two areas, as many areas reachable over land
as before, every home with at least two land neighbours). A worse board is
kept with probability exp(-(worse by) / T), T falling from T0 (default 1.0)
to 0.3 over STEPS. The best board is written to OUT_BOARD; every step is
printed.

`revert` puts the areas whose kind differs from REFERENCE (a board file with
the same cells) back to their kinds there, two areas' kinds swapped a step
(homes stay), and keeps a swap only when the score stays within SLACK of the
start's and no colour is further than 5 points from even: how many of a
search's changes a fair board needs.

The rows a fair board needs then go into the board's [[setup]] table
(RULES-NOTES.md, "Fairness of the Summer board").
"""
import collections
import copy
import math
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
LINE = re.compile(
    r"(\d) players, (\d+) games: (.*?) \(even share ([\d.]+)%, furthest ([\d.]+) points; "
    r"upgrades/areas/glory at the end per game played: (.*)\)"
)
DIRS = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
MIN_CELLS, MAX_CELLS = 5, 10
GLORY_WEIGHT = 60.0


class Board:
    def __init__(self, path):
        text = open(path).read()
        self.data = tomllib.loads(text)
        self.prefix = text[: text.index("\n[[area]]\n")]
        self.rivers = [tuple(p) for p in self.data.get("rivers", [])]
        self.open_rivers = {tuple(sorted(p)) for p in self.data.get("bridges", [])}
        self.reach = len(self.reachable(self.land(self.data["area"])))

    def touch(self, areas):
        owner = {tuple(c): a["id"] for a in areas for c in a["cells"]}
        near = [set() for _ in areas]
        for a in areas:
            for q, r in a["cells"]:
                for dq, dr in DIRS:
                    j = owner.get((q + dq, r + dr))
                    if j is not None and j != a["id"]:
                        near[a["id"]].add(j)
        return near

    def land(self, areas):
        blocked = {tuple(sorted(p)) for p in self.rivers} - self.open_rivers
        return [{j for j in t if tuple(sorted((i, j))) not in blocked} for i, t in enumerate(self.touch(areas))]

    @staticmethod
    def reachable(land, start=0):
        seen = {start: 0}
        todo = collections.deque([start])
        while todo:
            x = todo.popleft()
            for y in land[x]:
                if y not in seen:
                    seen[y] = seen[x] + 1
                    todo.append(y)
        return seen

    def signature(self, areas):
        land = self.land(areas)
        return tuple(tuple(sorted(x)) for x in land), tuple((a["kind"], a.get("colour")) for a in areas)

    def allowed(self, areas):
        touch, land = self.touch(areas), self.land(areas)
        if any(b not in touch[a] for a, b in self.rivers):
            return False
        if any(a["kind"] == "home" and len(land[a["id"]]) < 2 for a in areas):
            return False
        return len(self.reachable(land)) == self.reach

    def render(self, areas):
        out = [self.prefix.rstrip("\n") + "\n"]
        for a in areas:
            s = '\n[[area]]\nid = %d\nname = "%s"\nkind = "%s"\n' % (a["id"], a["name"], a["kind"])
            if a.get("colour"):
                s += 'colour = "%s"\n' % a["colour"]
            if a.get("harbour"):
                s += "harbour = true\n"
            s += "cells = [%s]\n" % ", ".join("[%d, %d]" % (c[0], c[1]) for c in a["cells"])
            out.append(s)
        for row in self.data.get("setup", []):
            out.append("\n[[setup]]\nplayers = %d\nareas = [\n" % row["players"])
            for c in row["areas"]:
                s = '  { id = %d, name = "%s", kind = "%s"' % (c["id"], c["name"], c["kind"])
                if c.get("colour"):
                    s += ', colour = "%s"' % c["colour"]
                out.append(s + " },\n")
            out.append("]\n")
        return "".join(out)


def rename(a):
    a["name"] = a["colour"].capitalize() + " home" if a["kind"] == "home" else "%s %d" % (KIND_NAMES[a["kind"]], a["id"])


def connected(cells):
    cells = set(cells)
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        q, r = todo.pop()
        for dq, dr in DIRS:
            n = (q + dq, r + dr)
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


class Measure:
    def __init__(self, binary, board, players, games):
        self.binary, self.board, self.players, self.games = binary, board, players, games
        self.known = {}

    def __call__(self, areas):
        key = self.board.signature(areas)
        if key not in self.known:
            self.known[key] = self.run(areas)
        return self.known[key]

    def run(self, areas):
        with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
            f.write(self.board.render(areas))
            f.flush()
            p = subprocess.run([self.binary, str(self.games), str(self.players), f.name], capture_output=True, text=True)
        for line in p.stdout.splitlines():
            m = LINE.match(line)
            if not m:
                continue
            rates = {k: float(v) for k, v in re.findall(r"(\w+) ([\d.]+)%", m.group(3))}
            even, far = float(m.group(4)), float(m.group(5))
            glory = {k: float(g) for k, g in re.findall(r"(\w+) [\d.]+/[\d.]+/([\d.]+)", m.group(6))}
            mean = sum(glory.values()) / len(glory)
            spread = (sum((g - mean) ** 2 for g in glory.values()) / len(glory)) ** 0.5 / mean
            rms = sum((v - even) ** 2 for v in rates.values()) ** 0.5
            return far + 0.05 * rms + GLORY_WEIGHT * spread, far, rates, glory
        raise RuntimeError(p.stderr[-500:])


def propose(board, areas, rng):
    areas = copy.deepcopy(areas)
    x = rng.random()
    if x < 0.6:
        before = board.signature(areas)[0]
        for _ in range(300):
            a = rng.choice(areas)
            if len(a["cells"]) <= MIN_CELLS:
                continue
            c = tuple(rng.choice(a["cells"]))
            owner = {tuple(z): b["id"] for b in areas for z in b["cells"]}
            near = {owner[(c[0] + dq, c[1] + dr)] for dq, dr in DIRS if (c[0] + dq, c[1] + dr) in owner} - {a["id"]}
            if not near:
                continue
            b = areas[rng.choice(sorted(near))]
            rest = [tuple(z) for z in a["cells"] if tuple(z) != c]
            if len(b["cells"]) >= MAX_CELLS or not connected(rest):
                continue
            was_a, was_b = a["cells"], list(b["cells"])
            a["cells"], b["cells"] = [list(z) for z in rest], was_b + [list(c)]
            if board.allowed(areas) and board.signature(areas)[0] != before:
                return areas, "cell [%d, %d] from %d to %d" % (c[0], c[1], a["id"], b["id"])
            a["cells"], b["cells"] = was_a, was_b
        return None, None
    if x < 0.9:
        free = [a for a in areas if a["kind"] not in ("home", "sacred")]
        a = rng.choice(free)
        if a["kind"] == "camp":
            near = board.touch(areas)[a["id"]]
            other = [areas[j] for j in near if areas[j]["kind"] not in ("home", "sacred", "camp")]
        else:
            other = [b for b in free if b["kind"] not in (a["kind"], "camp")]
        if not other:
            return None, None
        b = rng.choice(other)
        a["kind"], b["kind"] = b["kind"], a["kind"]
        rename(a)
        rename(b)
        return areas, "swap %d %d" % (a["id"], b["id"])
    home = rng.choice([a for a in areas if a["kind"] == "home"])
    steps = Board.reachable(board.land(areas), home["id"])
    to = [a for a in areas if a.get("harbour") and a["kind"] not in ("home", "sacred", "camp") and 0 < steps.get(a["id"], 99) <= 3]
    if not to:
        return None, None
    to = rng.choice(to)
    home["kind"], to["kind"] = to["kind"], "home"
    to["colour"] = home.pop("colour")
    rename(home)
    rename(to)
    if not board.allowed(areas):
        return None, None
    return areas, "home %s from %d to %d" % (to["colour"], home["id"], to["id"])


def anneal(board, measure, steps, rng, out, t0):
    current = board.data["area"]
    score = measure(current)[0]
    best, best_score = current, score
    print("start", round(score, 2), measure(current)[1:], flush=True)
    for step in range(steps):
        t = t0 * (0.3 / t0) ** (step / max(1, steps - 1))
        new, what = propose(board, current, rng)
        if new is None:
            continue
        try:
            s, far, rates, glory = measure(new)
        except RuntimeError as e:
            print(step, "invalid", what, e, flush=True)
            continue
        kept = s < score or rng.random() < math.exp(-(s - score) / t)
        if kept:
            current, score = new, s
        if s < best_score:
            best, best_score = new, s
            open(out, "w").write(board.render(best))
        print(step, "T %.2f" % t, "kept" if kept else "dropped", what, round(s, 2), far, rates, glory, "best", round(best_score, 2), flush=True)


def revert(board, measure, steps, rng, out, reference, slack):
    want = tomllib.load(open(reference, "rb"))["area"]
    current = board.data["area"]
    start = measure(current)[0]
    print("start", round(start, 2), measure(current)[1:], flush=True)

    def differing(areas):
        return [a for a in areas if "home" not in (a["kind"], want[a["id"]]["kind"]) and a["kind"] != want[a["id"]]["kind"]]

    tried = set()
    for step in range(steps):
        diff = differing(current)
        pairs = []
        for a in diff:
            for b in diff:
                if b is not a and b["kind"] == want[a["id"]]["kind"] and (min(a["id"], b["id"]), max(a["id"], b["id"])) not in tried:
                    pairs.append((1 + (want[b["id"]]["kind"] == a["kind"]), a["id"], b["id"]))
        if not pairs:
            break
        rng.shuffle(pairs)
        pairs.sort(key=lambda p: -p[0])
        _, i, j = pairs[0]
        tried.add((min(i, j), max(i, j)))
        new = copy.deepcopy(current)
        new[i]["kind"], new[j]["kind"] = new[j]["kind"], new[i]["kind"]
        rename(new[i])
        rename(new[j])
        s, far, rates, glory = measure(new)
        kept = s <= start + slack and far <= 5.0
        if kept:
            current, tried = new, set()
            open(out, "w").write(board.render(current))
        print(step, "kept" if kept else "dropped", "swap %d %d" % (i, j), round(s, 2), far, rates, "differing", len(differing(current)), flush=True)


def main():
    mode, binary, start, players, games, steps, seed, out = sys.argv[1:9]
    board = Board(start)
    measure = Measure(binary, board, int(players), int(games))
    rng = random.Random(int(seed))
    if mode == "anneal":
        t0 = float(sys.argv[9]) if len(sys.argv) > 9 else 1.0
        anneal(board, measure, int(steps), rng, out, t0)
    elif mode == "revert":
        revert(board, measure, int(steps), rng, out, sys.argv[9], float(sys.argv[10]))
    else:
        sys.exit("the mode is anneal or revert, not %r" % mode)


if __name__ == "__main__":
    main()
