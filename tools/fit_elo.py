#!/usr/bin/env python3
"""Fit the UCI_Elo mapping: the Elo of each internal level, from calibration logs.

    tools/fit_elo.py LEVEL:OPPONENT_ELO:GAMES [LEVEL:OPPONENT_ELO:GAMES ...]

LEVEL is the internal level the run played at (see src/strength.rs: the level of a UCI_Elo
setting), OPPONENT_ELO the UCI_Elo of the Stockfish it played, GAMES the PGN that
tools/calibrate_elo.sh wrote (ox88 named `ox88` in it), or else the run's counts W/D/L as the
table in docs/strength.md gives them (its faults are then the table's). For each run: the
games, the score, the Elo difference with its 95%
interval (from the trinomial variance of the games) and the estimate (the opponent's rating
plus the difference). Then weighted least-squares fits (weights 1/err^2) of the estimate against
the level, a line and a parabola in d = level - 1000, with their chi-square, so that the curve
is kept only if it fits better than the line by more than the games' noise.

Games Stockfish lost by a crash or hang (PGN `Termination "abandoned"`) are left out here and
reported: they say nothing of ox88's strength. Needs numpy.
"""
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgn_result import count as count_pgn  # noqa: E402


def elo(score):
    return -400 * math.log10(1 / score - 1)


def count(path):
    m = re.fullmatch(r"(\d+)/(\d+)/(\d+)", path)
    if m:
        return stats(*map(int, m.groups()), 0, 0)
    with open(path, encoding="utf-8", errors="replace") as f:
        w, d, l, faults, opponent = count_pgn("ox88", f.read())
    forfeits = opponent["crash"]
    return stats(w - forfeits, d, l, forfeits, sum(faults.values()))


def stats(w, d, l, forfeits, faults):
    n = w + d + l
    s = (w + d / 2) / n
    se = math.sqrt((w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s**2) / n / n)
    clamp = lambda x: min(max(x, 0.005), 0.995)
    err = (elo(clamp(s + 1.96 * se)) - elo(clamp(s - 1.96 * se))) / 2
    return n, w, d, l, forfeits, faults, s, elo(clamp(s)), err


def main(args):
    if not args:
        print(__doc__)
        return 2
    points = []
    for arg in args:
        level, opponent, path = arg.split(":", 2)
        n, w, d, l, forfeits, faults, s, diff, err = count(path)
        est = int(opponent) + diff
        print(
            f"level {level} vs sf{opponent}: {n} games {w}/{d}/{l} score {s:.3f} "
            f"Elo {diff:+.0f} ± {err:.0f} est. {est:.0f} (Stockfish forfeits left out {forfeits}, faults {faults})"
        )
        points.append((float(level) - 1000, est, err))
    x = np.array([p[0] for p in points])
    y = np.array([p[1] for p in points])
    sw = 1 / np.array([p[2] for p in points])
    for degree, name in ((1, "line"), (2, "parabola")):
        if len(points) <= degree:
            continue
        a = np.vstack([x**k for k in range(degree + 1)]).T
        coef, *_ = np.linalg.lstsq(a * sw[:, None], y * sw, rcond=None)
        resid = y - a @ coef
        chi2 = float(np.sum((resid * sw) ** 2))
        terms = " + ".join(f"{c:.6g} d^{k}" for k, c in enumerate(coef))
        print(f"{name}: Elo = {terms}; chi2 {chi2:.2f} on {len(y) - degree - 1} dof; residuals {np.round(resid).astype(int).tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
