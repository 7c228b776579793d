#!/usr/bin/env python3
"""Fits ox88's win/draw/loss model (src/wdl.rs) to its own games.

Data: files written by tools/datagen.rs ("FEN | score | result" per position, "# game I R N"
closing each game). The model, for a score v in centipawns and the material m on the board
(pawn 1, knight and bishop 3, rook 5, queen 9, both sides, clamped to [M_MIN, M_MAX]):

    win  = 1 / (1 + exp((a(m) - v) / b(m)))
    loss = 1 / (1 + exp((a(m) + v) / b(m)))
    draw = 1 - win - loss

with a and b polynomials of degree DEGREE in x = (m - M_MID) / M_HALF. Scores and results are taken from White's
view; the model is symmetric (v -> -v swaps win and loss), so the side to move's view gives
the same likelihood. Positions with a mate score are left out.

Method: maximum likelihood (mean negative log-likelihood of the game's result), full-batch
Adam on positions aggregated by (score in BIN-wide bins, material). Whole games are held out for validation
(game index % HOLDOUT == 0); the held-out log-loss is reported beside two baselines: the
constant frequencies of the training set, and the same model without material (a, b
constant). No numpy: plain Python, a few minutes for a few hundred thousand positions.

    python3 tools/fit_wdl.py selfplay/wdl-6k.txt [more.txt ...] [--iterations N]
"""

import math
import sys
from collections import defaultdict

M_MIN, M_MAX = 8, 78
M_MID, M_HALF = 43.0, 35.0
# a and b are polynomials of this degree in x.
DEGREE = 3
N = DEGREE + 1
# Scores are grouped in bins this wide (centipawns) to speed the fit; far below b's scale.
BIN = 4
HOLDOUT = 10
VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9}
EPS = 1e-12


def material(fen):
    board = fen.split(" ", 1)[0]
    return sum(VALUES.get(c.lower(), 0) for c in board)


def read(paths):
    """Cells {(v, m): [wins, draws, losses]} for training and held-out games, and counts."""
    train, test = defaultdict(lambda: [0, 0, 0]), defaultdict(lambda: [0, 0, 0])
    games = [0, 0]
    for path in paths:
        pending = []
        with open(path) as f:
            for line in f:
                if line.startswith("# game "):
                    index = int(line.split()[2])
                    held = index % HOLDOUT == 0
                    cells = test if held else train
                    games[held] += 1
                    for key, outcome in pending:
                        cells[key][outcome] += 1
                    pending = []
                    continue
                if line.startswith("#"):
                    continue
                parts = [p.strip() for p in line.split("|")]
                if len(parts) != 3 or parts[1].startswith("#"):
                    continue
                try:
                    v, result = int(parts[1]), float(parts[2])
                except ValueError:
                    continue
                outcome = 0 if result == 1.0 else 2 if result == 0.0 else 1
                m = min(max(material(parts[0]), M_MIN), M_MAX)
                pending.append(((BIN * round(v / BIN), m), outcome))
    return train, test, games


def poly(c, x):
    return sum(ck * x**k for k, ck in enumerate(c))


def sigmoid(t):
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


def probabilities(params, v, m):
    x = (m - M_MID) / M_HALF
    a = max(poly(params[:N], x), 0.0)
    b = max(poly(params[N:], x), 1.0)
    w = sigmoid((v - a) / b)
    l = sigmoid((-v - a) / b)
    return w, max(1.0 - w - l, 0.0), l


def loss_and_gradient(params, cells, with_gradient=True):
    """Mean negative log-likelihood over the positions of `cells`, and its gradient."""
    total, n = 0.0, 0
    grad = [0.0] * (2 * N)
    for (v, m), counts in cells.items():
        x = (m - M_MID) / M_HALF
        a = max(poly(params[:N], x), 0.0)
        b = max(poly(params[N:], x), 1.0)
        u, t = (v - a) / b, (-v - a) / b
        w, l = sigmoid(u), sigmoid(t)
        d = max(1.0 - w - l, EPS)
        pw, pl = max(w, EPS), max(l, EPS)
        cw, cd, cl = counts
        total -= cw * math.log(pw) + cd * math.log(d) + cl * math.log(pl)
        n += cw + cd + cl
        if not with_gradient:
            continue
        # dW/da = -W'/b, dW/db = -W' u / b (W' = w(1-w)); likewise L with t; D = 1 - W - L.
        sw, sl = w * (1 - w), l * (1 - l)
        dw_da, dw_db = -sw / b, -sw * u / b
        dl_da, dl_db = -sl / b, -sl * t / b
        # d(-log P)/dθ = -(count / P) dP/dθ, summed over the three outcomes.
        g_a = -(cw / pw) * dw_da - (cl / pl) * dl_da + (cd / d) * (dw_da + dl_da)
        g_b = -(cw / pw) * dw_db - (cl / pl) * dl_db + (cd / d) * (dw_db + dl_db)
        for k in range(N):
            grad[k] += g_a * x**k
            grad[N + k] += g_b * x**k
    n = max(n, 1)
    return total / n, [g / n for g in grad]


def fit(cells, params, iterations, free=range(2 * N)):
    """Full-batch Adam on the parameters listed in `free`."""
    m1, m2 = [0.0] * (2 * N), [0.0] * (2 * N)
    beta1, beta2 = 0.9, 0.999
    for i in range(1, iterations + 1):
        rate = 2.0 * 0.02 ** (i / iterations)
        loss, grad = loss_and_gradient(params, cells)
        for k in free:
            m1[k] = beta1 * m1[k] + (1 - beta1) * grad[k]
            m2[k] = beta2 * m2[k] + (1 - beta2) * grad[k] ** 2
            step = rate * (m1[k] / (1 - beta1**i)) / (math.sqrt(m2[k] / (1 - beta2**i)) + 1e-12)
            params[k] -= step
        if i % 100 == 0 or i == iterations:
            print(f"  iteration {i}: training log-loss {loss:.5f}", file=sys.stderr)
    return params


def constant_loss(train, test):
    counts = [0, 0, 0]
    for c in train.values():
        for k in range(3):
            counts[k] += c[k]
    freq = [c / sum(counts) for c in counts]
    total, n = 0.0, 0
    for c in test.values():
        for k in range(3):
            total -= c[k] * math.log(max(freq[k], EPS))
            n += c[k]
    return total / max(n, 1), freq


def main():
    args = sys.argv[1:]
    iterations = 1500
    if "--iterations" in args:
        i = args.index("--iterations")
        iterations = int(args[i + 1])
        del args[i : i + 2]
    if not args:
        sys.exit(__doc__)
    train, test, games = read(args)
    positions = [sum(sum(c) for c in cells.values()) for cells in (train, test)]
    print(f"training: {games[0]} games, {positions[0]} positions; held out: {games[1]} games, {positions[1]} positions")

    base_loss, freq = constant_loss(train, test)
    print("fitting the model without material ...", file=sys.stderr)
    flat = fit(train, [150.0] + [0.0] * DEGREE + [100.0] + [0.0] * DEGREE, iterations // 2, free=(0, N))
    flat_loss, _ = loss_and_gradient(flat, test, with_gradient=False)
    print("fitting the model ...", file=sys.stderr)
    params = fit(train, list(flat), iterations)
    train_loss, _ = loss_and_gradient(params, train, with_gradient=False)
    test_loss, _ = loss_and_gradient(params, test, with_gradient=False)

    print(f"constant frequencies (W {freq[0]:.3f} D {freq[1]:.3f} L {freq[2]:.3f}): held-out log-loss {base_loss:.5f}")
    print(f"without material (a = {flat[0]:.2f}, b = {flat[N]:.2f}): held-out log-loss {flat_loss:.5f}")
    print(f"model: training log-loss {train_loss:.5f}, held-out log-loss {test_loss:.5f}")
    print()
    print("// Paste into src/wdl.rs:")
    print(f"const A: [f64; {N}] = [{', '.join(f'{c:.3f}' for c in params[:N])}];")
    print(f"const B: [f64; {N}] = [{', '.join(f'{c:.3f}' for c in params[N:])}];")
    print()
    print("material  a(m)    b(m)   W/D/L per mille at +100 cp")
    for m in (M_MAX, 70, 60, 50, 40, 30, 20, 14, M_MIN):
        x = (m - M_MID) / M_HALF
        w, d, l = probabilities(params, 100, m)
        print(f"{m:8d} {poly(params[:N], x):7.1f} {poly(params[N:], x):7.1f}   {w*1000:.0f}/{d*1000:.0f}/{l*1000:.0f}")


if __name__ == "__main__":
    main()
