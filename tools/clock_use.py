#!/usr/bin/env python3
"""How each engine spends its clock, from the PGNs a runner wrote.

    tools/clock_use.py PGN_OR_FOLDER... [--engine NAME]

Reads games whose moves carry the runner's comments with the time each move took (fastchess
and cutechess write `{+0.25/12 0.512s}`, tools/soak_play.py `{ 0.512s left 9.488s ... }`) and whose TimeControl tag names the clock
(`40/10`, `10+0.1`, `60+0.6`, `5`). The clock of each side is rebuilt move by move as the rules
run it: `base+inc` adds the increment after each move; `moves/base` (repeating) adds the
base again after the side's `moves`-th move of this game, which must be made within the
period (some runners, fastchess among them, add it before that move is charged, and flag
later than this count would).

For every engine (a PGN's White and Black names; `--engine` keeps those that start with
NAME) and time control, prints:

    games       games played
    moves       moves timed
    per move    mean seconds a move (the book's moves carry no time and are not counted)
    left        for `moves/base`: the share of each completed period's time still on the
                clock when the period ends (mean, and the least); for `base+inc`: the share
                of the base on the clock at the side's 40th and 80th move (mean)
    least       the least seconds ever on the clock after a move, and the share of games in
                which the clock fell under 5% of the base
    flagged     games lost on time (Termination "time forfeit")

Time management that spends too little leaves most of a period unused; one that spends too
much ends periods and long games near zero. Compare an engine with a peer in the same run.
"""
import argparse
import os
import re
import sys
from collections import defaultdict

TIME = re.compile(r"\{[^}]*?(-?\d+(?:\.\d+)?)s\}")
SOAK_TIME = re.compile(r"\{\s*(-?\d+(?:\.\d+)?)s left ")
TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')


def parse_tc(text):
    """(moves, base, inc) in seconds; moves is 0 for `base+inc`. None when not understood."""
    m = re.fullmatch(r"(\d+)/(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?", text)
    if m:
        return int(m.group(1)), float(m.group(2)), float(m.group(3) or 0)
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?", text)
    if m:
        return 0, float(m.group(1)), float(m.group(2) or 0)
    return None


def games(path):
    """Yields (tags, movetext) for each game of a PGN file."""
    tags, moves = {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = TAG.match(line)
            if m:
                if moves:
                    yield tags, " ".join(moves)
                    tags, moves = {}, []
                tags[m.group(1)] = m.group(2)
            elif line.strip():
                moves.append(line.strip())
    if tags:
        yield tags, " ".join(moves)


def first_mover(tags):
    fen = tags.get("FEN")
    if fen and len(fen.split()) > 1 and fen.split()[1] == "b":
        return 1
    return 0


class Stats:
    def __init__(self):
        self.games = self.moves = self.flagged = self.under5 = 0
        self.spent = 0.0
        self.period_left = []
        self.at = {40: [], 80: []}
        self.least = None

    def add_game(self, times, tc, flagged):
        moves, base, inc = tc
        self.games += 1
        self.flagged += flagged
        clock, low = base, base
        for n, t in enumerate(times, 1):
            clock -= t
            low = min(low, clock)
            self.least = clock if self.least is None else min(self.least, clock)
            self.moves += 1
            self.spent += t
            clock += inc
            if moves and n % moves == 0:
                self.period_left.append(max(clock, 0.0) / base)
                clock += base
            if not moves and n in self.at:
                self.at[n].append(clock / base)
        if low < 0.05 * base:
            self.under5 += 1

    def line(self):
        per_move = self.spent / self.moves if self.moves else 0.0
        if self.period_left:
            p = self.period_left
            left = f"period end {100 * sum(p) / len(p):5.1f}% (least {100 * min(p):4.1f}%, {len(p)} periods)"
        else:
            parts = [f"move {n} {100 * sum(v) / len(v):5.1f}% ({len(v)})" for n, v in self.at.items() if v]
            left = ", ".join(parts) or "-"
        least = f"{self.least:.3f}s" if self.least is not None else "-"
        return (
            f"games {self.games:5d}  moves {self.moves:6d}  per move {per_move:6.3f}s  left: {left}  "
            f"least {least}, under 5% in {100 * self.under5 / max(self.games, 1):4.1f}% of games  "
            f"flagged {self.flagged}"
        )


def pgn_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _, files in sorted(os.walk(path)):
                for name in sorted(files):
                    if name.endswith(".pgn"):
                        yield os.path.join(root, name)
        else:
            yield path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="PGN files or folders of them")
    ap.add_argument("--engine", help="only engines whose name starts with this")
    args = ap.parse_args()
    stats = defaultdict(Stats)
    unreadable = 0
    for path in pgn_files(args.paths):
        if not os.path.exists(path):
            sys.exit(f"clock_use: no such file: {path}")
        for tags, text in games(path):
            tc = parse_tc(tags.get("TimeControl", ""))
            if tc is None:
                unreadable += 1
                continue
            # Comments in the order of the moves: the side to move at the start first.
            times = [float(t) for t in TIME.findall(text) or SOAK_TIME.findall(text)]
            names = [tags.get("White", "?"), tags.get("Black", "?")]
            first = first_mover(tags)
            forfeit = tags.get("Termination", "") == "time forfeit"
            result = tags.get("Result", "*")
            loser = {"1-0": 1, "0-1": 0}.get(result)
            for side in (0, 1):
                name = names[side]
                if args.engine and not name.startswith(args.engine):
                    continue
                own = times[(side - first) % 2 :: 2]
                flagged = int(forfeit and loser == side)
                stats[(name, tags["TimeControl"])].add_game(own, tc, flagged)
    if not stats:
        sys.exit("clock_use: no timed games found")
    for (name, tc), s in sorted(stats.items()):
        print(f"{name:16s} {tc:12s} {s.line()}")
    if unreadable:
        print(f"({unreadable} games without a TimeControl this tool reads were skipped)")


if __name__ == "__main__":
    main()
