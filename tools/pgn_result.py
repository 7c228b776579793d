#!/usr/bin/env python3
"""The result of a match for one engine, read from the PGN that fastchess or cutechess-cli wrote.

    tools/pgn_result.py NAME GAMES.pgn

NAME is the engine's name in the PGN (`name=` given to the runner). Prints one line

    RESULT games=N w=W d=D l=L score=S elo=E err=X illegal=I timeloss=T crash=C other=O

(NAME's wins, draws and losses; the Elo difference, NAME minus its opponents, with its 95%
interval from the trinomial variance of the games; NAME's faults by kind), then
`opponent faults: N`. A fault is a game its side lost by the PGN's `Termination` tag: `time
forfeit`, `illegal move` or `rules infraction`, `abandoned` or `stalled connection` (a crash or
a hang), or any other tag but `normal` and `adjudication` (other). Only the standard library is
needed. Exit code 2 when the file holds no game of NAME.
"""
import math
import re
import sys

KINDS = {
    "time forfeit": "timeloss",
    "illegal move": "illegal",
    "rules infraction": "illegal",
    "abandoned": "crash",
    "stalled connection": "crash",
}
TAG = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')


def games(text):
    """The tag pairs of every game, as dicts."""
    tags, out = {}, []
    for line in text.splitlines():
        m = TAG.match(line.strip())
        if m:
            tags[m.group(1)] = m.group(2)
        elif tags and line.strip():
            out.append(tags)
            tags = {}
    if tags:
        out.append(tags)
    # Movetext may span lines: keep one record per game, the first after its tags.
    return [g for g in out if "Result" in g]


def elo(score):
    return -400 * math.log10(1 / score - 1)


def summary(w, d, l):
    """Games, score, Elo difference and the half-width of its 95% interval."""
    n = w + d + l
    s = (w + d / 2) / n
    se = math.sqrt((w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s**2) / n / n)
    clamp = lambda x: min(max(x, 0.005), 0.995)
    err = (elo(clamp(s + 1.96 * se)) - elo(clamp(s - 1.96 * se))) / 2
    return n, s, elo(clamp(s)), err


def count(name, text):
    """NAME's wins, draws, losses, and the faults by kind of NAME and of its opponents."""
    w = d = l = 0
    faults = {"illegal": 0, "timeloss": 0, "crash": 0, "other": 0}
    opponent = dict(faults)
    for g in games(text):
        if name not in (g.get("White"), g.get("Black")):
            continue
        white = g.get("White") == name
        result = g["Result"]
        if result == "1/2-1/2":
            d += 1
            continue
        if result not in ("1-0", "0-1"):
            # An unfinished game ("*"): nobody's win, and a fault of the match.
            faults["other"] += 1
            continue
        won = (result == "1-0") == white
        w, l = (w + 1, l) if won else (w, l + 1)
        termination = g.get("Termination", "normal").lower()
        if termination in ("normal", "adjudication"):
            continue
        (opponent if won else faults)[KINDS.get(termination, "other")] += 1
    return w, d, l, faults, opponent


def main(args):
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    name, path = args
    with open(path, encoding="utf-8", errors="replace") as f:
        w, d, l, faults, opponent = count(name, f.read())
    if w + d + l == 0:
        print(f"pgn_result: no finished game of '{name}' in {path}", file=sys.stderr)
        return 2
    n, s, diff, err = summary(w, d, l)
    kinds = " ".join(f"{k}={v}" for k, v in faults.items())
    print(f"RESULT games={n} w={w} d={d} l={l} score={s:.3f} elo={diff:.1f} err={err:.1f} {kinds}")
    print(f"opponent faults: {sum(opponent.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
