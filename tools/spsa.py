#!/usr/bin/env python3
"""SPSA tuning of ox88's search numbers with a standard match runner (fastchess or cutechess-cli).

    tools/spsa.py ENGINE --state FILE [--iterations N] [--run K] [--pairs P] [--tc TC | --nodes M]
                  [--concurrency C] [--book FILE] [--inputs FILE] [--seed S] [--show]

ENGINE is an ox88 built with `--features tune` (docs/tuning.md): its `spsa-inputs` command
gives the table (name, default, range, c_end, r_end; `--inputs FILE` reads those lines from a
file instead, e.g. to tune a subset). Each iteration k:

1. c_k = c / k^gamma (at least 0.5: an integer must move), a_k = a / (A + k)^alpha,
   r_k = a_k / c_k^2, with c, a and A derived from c_end, r_end and the planned number of
   iterations N as OpenBench and fishtest do: c = c_end * N^gamma, a_end = r_end * c_end^2,
   a = a_end * (A + N)^alpha, A = 0.1 * N; alpha 0.602, gamma 0.101.
2. every number is perturbed by +-c_k at once (a random sign each): the two sets, rounded
   alike at random to integers and kept inside their ranges, play P game pairs against each
   other (same opening, colours swapped) through the runner's `option.NAME=VALUE`;
3. each number moves by r_k * c_k * (wins - losses of the plus set) * its sign, and is kept
   inside its range.

The state (values, iteration, random generator, every iteration's result) is written to FILE
after each iteration, so that a run stopped at any point resumes where it was with the same
command. `--run K` stops after K more iterations (default: to N). The current values are
printed after each iteration, and at the end also as OpenBench's SPSA input lines with the
tuned values as defaults. `--show` prints them from FILE and plays nothing.

RUNNER names the runner's command (default: fastchess if installed, else cutechess-cli), as
for tools/match.sh. Without `--book` the openings come from ENGINE's `genfens`. Only the
standard library is needed.
"""
import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pgn_result  # noqa: E402  (beside this file)

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
# An integer perturbed by less than half a unit would mostly not move at all.
MIN_C = 0.5


class Param:
    """One tunable number: its range, SPSA constants and current (real) value."""

    def __init__(self, name, default, lo, hi, c_end, r_end, value=None):
        self.name, self.default, self.lo, self.hi = name, int(default), int(lo), int(hi)
        self.c_end, self.r_end = float(c_end), float(r_end)
        self.value = float(default if value is None else value)

    def to_json(self):
        return {k: getattr(self, k) for k in ("name", "default", "lo", "hi", "c_end", "r_end", "value")}

    @staticmethod
    def from_json(d):
        return Param(d["name"], d["default"], d["lo"], d["hi"], d["c_end"], d["r_end"], d["value"])


def parse_inputs(text):
    """OpenBench SPSA input lines `NAME, int, default, min, max, c_end, r_end`."""
    params = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7 or fields[1] != "int":
            raise ValueError(f"line {number}: not 'NAME, int, default, min, max, c_end, r_end': {line}")
        try:
            p = Param(fields[0], int(fields[2]), int(fields[3]), int(fields[4]), float(fields[5]), float(fields[6]))
        except ValueError:
            raise ValueError(f"line {number}: a number does not read: {line}") from None
        if not p.lo <= p.default <= p.hi or p.c_end <= 0 or p.r_end <= 0:
            raise ValueError(f"line {number}: default outside its range, or c_end/r_end not positive: {line}")
        params.append(p)
    if not params:
        raise ValueError("no parameter in the SPSA inputs")
    return params


def schedule(p, k, iterations):
    """c_k and r_k of `p` at iteration k (from 1) of a run planned for `iterations`."""
    big_a = A_RATIO * iterations
    c = p.c_end * iterations**GAMMA
    a = p.r_end * p.c_end**2 * (big_a + iterations) ** ALPHA
    c_k = max(c / k**GAMMA, MIN_C)
    a_k = a / (big_a + k) ** ALPHA
    return c_k, a_k / c_k**2


def perturb(params, k, iterations, rng):
    """The signs, the two integer sets (plus, minus) and the c_k, r_k of iteration k."""
    flips, plus, minus, steps = [], [], [], []
    for p in params:
        c_k, r_k = schedule(p, k, iterations)
        flip = rng.choice((-1, 1))
        # The same random rounding for both sets keeps them 2 c_k apart on average.
        u = rng.random()
        plus.append(min(max(math.floor(p.value + flip * c_k + u), p.lo), p.hi))
        minus.append(min(max(math.floor(p.value - flip * c_k + u), p.lo), p.hi))
        flips.append(flip)
        steps.append((c_k, r_k))
    return flips, plus, minus, steps


def update(params, flips, steps, wins, losses):
    """Moves every value along its sign by the plus set's result, kept in its range."""
    for p, flip, (c_k, r_k) in zip(params, flips, steps):
        p.value = min(max(p.value + r_k * c_k * (wins - losses) * flip, p.lo), p.hi)


def openbench_lines(params):
    """The table as OpenBench's SPSA input, the tuned values as the defaults."""
    return [f"{p.name}, int, {round(p.value)}, {p.lo}, {p.hi}, {p.c_end:g}, {p.r_end:g}" for p in params]


def show(state):
    print(f"iteration {state['iteration']} of {state['iterations']}")
    for p in state["params"]:
        print(f"  {p.name:24} {p.value:10.2f}  (start {p.default}, range {p.lo}..{p.hi})")


def find_runner():
    runner = os.environ.get("RUNNER")
    if runner:
        if not shutil.which(runner):
            sys.exit(f"spsa: RUNNER={runner} is not a command")
        return runner
    for name in ("fastchess", "cutechess-cli"):
        if shutil.which(name):
            return name
    sys.exit("spsa: no match runner: install fastchess (https://github.com/Disservin/fastchess) or "
             "cutechess-cli, or name one with RUNNER=/path/to/runner")


def make_book(engine, count, seed, path):
    """COUNT openings from the engine's `genfens`, as EPD (tools/match.sh's make_book)."""
    out = subprocess.run([engine, f"genfens {count} seed {seed} book None", "quit"], capture_output=True, text=True)
    lines = []
    for line in out.stdout.splitlines():
        if line.startswith("info string genfens "):
            f = line[len("info string genfens "):].split()
            lines.append(f"{f[0]} {f[1]} {f[2]} {f[3]} hmvc {f[4]}; fmvn {f[5]};\n")
    if len(lines) != count:
        sys.exit(f"spsa: {engine} made {len(lines)} openings of {count}")
    with open(path, "w") as fh:
        fh.writelines(lines)


def play(runner, engine, names, plus, minus, args, book, seed, pgn):
    """P game pairs of the plus set against the minus set; (wins, draws, losses) of plus."""
    def side(name, values):
        return ["cmd=" + engine, "name=" + name] + [f"option.{n}={v}" for n, v in zip(names, values)]

    out = ["-pgnout", "file=" + pgn, "-config", "outname=" + pgn[: -len(".pgn")] + ".config.json"]
    if os.path.basename(runner).startswith("cutechess"):
        out = ["-pgnout", pgn]
    if os.path.exists(pgn):
        os.remove(pgn)
    limit = ["tc=inf", f"nodes={args.nodes}"] if args.nodes else ["tc=" + args.tc, "timemargin=100"]
    command = ([runner, "-engine"] + side("plus", plus) + ["-engine"] + side("minus", minus)
               + ["-each", "proto=uci"] + limit
               + ["-openings", "file=" + book, "format=epd", "order=random", "-srand", str(seed),
                  "-rounds", str(args.pairs), "-games", "2", "-repeat", "-concurrency", str(args.concurrency),
                  "-recover"] + out)
    done = subprocess.run(command, stdout=subprocess.DEVNULL if args.quiet else None)
    if not os.path.exists(pgn):
        sys.exit(f"spsa: the runner wrote no games (exit code {done.returncode}): {' '.join(command)}")
    with open(pgn, encoding="utf-8", errors="replace") as fh:
        games = pgn_result.games(fh.read())
    w = d = l = 0
    for tags in games:
        result = tags.get("Result")
        plus_white = tags.get("White") == "plus"
        if tags.get("White") not in ("plus", "minus") or result not in ("1-0", "0-1", "1/2-1/2"):
            continue
        if result == "1/2-1/2":
            d += 1
        elif (result == "1-0") == plus_white:
            w += 1
        else:
            l += 1
    if w + d + l == 0:
        sys.exit(f"spsa: no finished game in {pgn}")
    return w, d, l


def save(path, state):
    data = dict(state, params=[p.to_json() for p in state["params"]], rng=encode_rng(state["rng"]))
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(data, fh, indent=1)
    os.replace(tmp, path)


def load(path):
    with open(path) as fh:
        data = json.load(fh)
    data["params"] = [Param.from_json(p) for p in data["params"]]
    data["rng"] = decode_rng(data["rng"])
    return data


def encode_rng(rng):
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def decode_rng(saved):
    rng = random.Random()
    rng.setstate((saved[0], tuple(saved[1]), saved[2]))
    return rng


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("engine", help="ox88 built with --features tune")
    ap.add_argument("--state", required=True, help="the run's state file (made, or resumed from)")
    ap.add_argument("--iterations", type=int, default=1000, help="planned iterations N (default 1000)")
    ap.add_argument("--run", type=int, help="iterations to play now (default: up to N)")
    ap.add_argument("--pairs", type=int, default=8, help="game pairs per iteration (default 8)")
    ap.add_argument("--tc", default="8+0.08", help="time control of the runner (default 8+0.08)")
    ap.add_argument("--nodes", type=int, help="nodes per move instead of a clock (the time manager's "
                    "numbers then play no part: tune the others, with --inputs)")
    ap.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    ap.add_argument("--book", help="EPD openings (default: 2000 from the engine's genfens)")
    ap.add_argument("--inputs", help="SPSA input lines from this file instead of the engine's spsa-inputs")
    ap.add_argument("--seed", type=int, default=1, help="random seed of a new run (default 1)")
    ap.add_argument("--show", action="store_true", help="print the state and the OpenBench lines; play nothing")
    ap.add_argument("--quiet", action="store_true", help="hide the runner's output")
    args = ap.parse_args(argv)

    if os.path.exists(args.state):
        state = load(args.state)
    elif args.show:
        sys.exit(f"spsa: no state file {args.state}")
    else:
        if args.inputs:
            with open(args.inputs) as fh:
                text = fh.read()
        else:
            text = subprocess.run([args.engine, "spsa-inputs"], capture_output=True, text=True).stdout
        try:
            params = parse_inputs(text)
        except ValueError as e:
            sys.exit(f"spsa: {e} (is {args.engine} built with --features tune?)")
        state = {"iteration": 0, "iterations": args.iterations, "seed": args.seed, "params": params,
                 "rng": random.Random(args.seed), "history": []}
        save(args.state, state)
    if args.iterations <= 0 or args.pairs <= 0 or (args.nodes is not None and args.nodes <= 0):
        sys.exit("spsa: --iterations, --pairs and --nodes must be positive")
    if args.show:
        show(state)
        print("\n".join(openbench_lines(state["params"])))
        return 0

    runner = find_runner()
    book = args.book
    if not book:
        book = os.path.splitext(args.state)[0] + ".book.epd"
        if not os.path.exists(book):
            make_book(args.engine, 2000, state["seed"], book)
    names = [p.name for p in state["params"]]
    pgn = os.path.splitext(args.state)[0] + ".iteration.pgn"
    last = state["iterations"] if args.run is None else min(state["iterations"], state["iteration"] + args.run)
    while state["iteration"] < last:
        k = state["iteration"] + 1
        flips, plus, minus, steps = perturb(state["params"], k, state["iterations"], state["rng"])
        w, d, l = play(runner, args.engine, names, plus, minus, args, book, state["seed"] * 100_003 + k, pgn)
        update(state["params"], flips, steps, w, l)
        state["iteration"] = k
        state["history"].append({"k": k, "w": w, "d": d, "l": l})
        save(args.state, state)
        print(f"spsa: iteration {k}/{state['iterations']}: plus +{w} ={d} -{l}", flush=True)
        show(state)
    print("\n".join(openbench_lines(state["params"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
