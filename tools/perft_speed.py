#!/usr/bin/env python3
"""Perft speed of ox88 against Stockfish's `go perft`, other perft programs, an older ox88 build,
and itself on more threads.

    tools/perft_speed.py [--ox88 target/release/ox88] [--stockfish PATH] [--base OLD_OX88]
                         [--other 'LABEL=COMMAND {fen} {depth}' ...] [--runs 5] [--deep-runs 1]
                         [--only start,kiwipete,...] [--no-deep]

Every figure is a whole process timed from outside: user + system seconds of the finished child
as the operating system counts them (CPU), or a monotonic clock around it (wall), start-up and
table set-up included. Two commands compared are run in turn, A B A B ..., after one warm-up run
of each, and the ratio is the median of the per-pair ratios, so a change of the machine's speed
during the call moves both sides of a pair. Ratios are the other command's time over ox88's:
above 1 means ox88 is faster. Every run's node count is checked against the published one.

Rows (the goals of the perft speed work in docs/perft.md):
  - the six positions of the chessprogramming wiki's perft page, one thread, no table: ox88
    against Stockfish's `go perft` (its start-up, network loading included, counted), by CPU
    time, goal 4.5; and against every `--other` program, goal 1 (ox88 the faster);
  - start position perft 7 and Kiwipete perft 6 with `--hash 256 --threads 1`: ox88 against
    the `--base` build (skipped without it), by CPU time, goal 1.15;
  - the same with `--threads 2` against `--threads 1`, by wall time;
  - start position perft 8 with `--hash 1024 --threads 2`, wall time, goal 5 s (skipped with
    --no-deep).

An `--other` program is a command line in which `{fen}` and `{depth}` are replaced (each as one
argument); its output must contain the node count (digits, commas allowed), and it must exit 0.
tools/peer-perft is one: a bitboard perft over the cozy-chess crate with PEXT sliders.
Stockfish is looked for on PATH and in /usr/games; without it those rows say so and are skipped.
Give the machine to this tool alone: other programs running change the two-thread rows most.
"""

import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# The chessprogramming wiki's "Perft Results" positions, each at a depth Stockfish needs about a
# second or more for (so that its start-up weighs little), with the published count.
POSITIONS = [
    ("start", START, 6, 119_060_324),
    ("kiwipete", KIWIPETE, 5, 193_690_690),
    ("position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 7, 178_633_661),
    ("position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 6, 706_045_033),
    ("position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 5, 89_941_194),
    ("position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 5, 164_075_551),
]
COUNTS = {
    (START, 7): 3_195_901_860,
    (START, 8): 84_998_978_956,
    (KIWIPETE, 6): 8_031_647_685,
    **{(fen, depth): nodes for _, fen, depth, nodes in POSITIONS},
}
STOCKFISH_GOAL = 4.5
OTHER_GOAL = 1.0
HASHED_GOAL = 1.15
THREADS_GOAL = 1.8
DEEP_GOAL_S = 5.0


class Command:
    """A command line, what it reads on its standard input, and the node count it must print."""

    def __init__(self, label, argv, nodes, stdin=""):
        self.label, self.argv, self.nodes, self.stdin = label, argv, nodes, stdin

    def timed(self):
        """Runs once; returns (cpu seconds, wall seconds). Exits on a wrong or missing count."""
        started = time.monotonic()
        proc = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        proc.stdin.write(self.stdin)
        proc.stdin.close()
        out = proc.stdout.read()
        # wait4 gives this child's own user and system time, to the microsecond.
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - started
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            sys.exit(f"{self.label}: exit code {code}")
        numbers = {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", out)}
        if self.nodes not in numbers:
            sys.exit(f"{self.label}: its output does not contain the count {self.nodes}")
        return usage.ru_utime + usage.ru_stime, wall


def ox88_perft(ox88, fen, depth, extra=()):
    argv = [ox88, "perft", str(depth), "--fen", fen, *extra]
    return Command(f"ox88 perft {depth} {' '.join(extra)}".strip(), argv, COUNTS[(fen, depth)])


def stockfish_perft(stockfish, fen, depth):
    script = f"position fen {fen}\ngo perft {depth}\nquit\n"
    return Command(f"stockfish go perft {depth}", [stockfish], COUNTS[(fen, depth)], script)


def other_perft(label, template, fen, depth):
    argv = [a.replace("{fen}", fen).replace("{depth}", str(depth)) for a in shlex.split(template)]
    return Command(f"{label} perft {depth}", argv, COUNTS[(fen, depth)])


def pairs(a, b, runs, measure):
    """Median of b/a over `runs` interleaved pairs, after a warm-up of each; and both medians."""
    a.timed(), b.timed()
    ratios, times_a, times_b = [], [], []
    for _ in range(runs):
        ta, tb = measure(a.timed()), measure(b.timed())
        times_a.append(ta)
        times_b.append(tb)
        ratios.append(tb / ta if ta > 0 else float("inf"))
    return statistics.median(ratios), statistics.median(times_a), statistics.median(times_b)


def row(name, goal, result, unit):
    ratio, ta, tb = result
    verdict = "ok" if ratio >= goal else "BELOW GOAL"
    print(f"{name:<62} {ratio:6.2f}  (goal >= {goal}, {verdict}; ox88 {ta:.3f} s, other {tb:.3f} s {unit})",
          flush=True)


def find_stockfish(given):
    if given:
        return given if shutil.which(given) else None
    return shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


def parse_other(text):
    label, sep, template = text.partition("=")
    if not sep or not label or "{fen}" not in template or "{depth}" not in template:
        raise argparse.ArgumentTypeError("expected LABEL=COMMAND with {fen} and {depth} in the command")
    if not shutil.which(shlex.split(template)[0]):
        raise argparse.ArgumentTypeError(f"{label}: no program {shlex.split(template)[0]}")
    return label, template


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ox88", default="target/release/ox88")
    parser.add_argument("--base", help="an older ox88 build for the hashed rows")
    parser.add_argument("--stockfish", help="Stockfish binary (default: on PATH or in /usr/games)")
    parser.add_argument("--other", type=parse_other, action="append", default=[], metavar="LABEL=COMMAND",
                        help="another perft program, e.g. 'peer=tools/peer-perft/target/release/peer-perft {fen} {depth}'")
    parser.add_argument("--only", help="the positions to time one thread on, by name, comma-separated "
                        f"(default all: {','.join(name for name, *_ in POSITIONS)})")
    parser.add_argument("--runs", type=int, default=5, help="pairs per row (default 5)")
    parser.add_argument("--deep-runs", type=int, default=1, help="runs of perft 8 (default 1)")
    parser.add_argument("--no-hashed", action="store_true", help="skip the rows with a table")
    parser.add_argument("--no-deep", action="store_true", help="skip perft 8")
    args = parser.parse_args()
    if not shutil.which(args.ox88):
        sys.exit(f"no ox88 binary at {args.ox88} (cargo build --release)")
    positions = POSITIONS
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in {name for name, *_ in POSITIONS}]
        if unknown:
            sys.exit(f"unknown position {unknown[0]} (known: {', '.join(name for name, *_ in POSITIONS)})")
        positions = [p for p in POSITIONS if p[0] in wanted]
    cpu = lambda t: t[0]
    wall = lambda t: t[1]

    stockfish = find_stockfish(args.stockfish)
    if not stockfish:
        print("Stockfish not found (--stockfish PATH): its rows are skipped")
    for name, fen, depth, _ in positions:
        if stockfish:
            result = pairs(ox88_perft(args.ox88, fen, depth), stockfish_perft(stockfish, fen, depth), args.runs, cpu)
            row(f"{name} perft {depth}, 1 thread, no hash: Stockfish / ox88", STOCKFISH_GOAL, result, "CPU")
        for label, template in args.other:
            result = pairs(ox88_perft(args.ox88, fen, depth), other_perft(label, template, fen, depth), args.runs, cpu)
            row(f"{name} perft {depth}, 1 thread, no hash: {label} / ox88", OTHER_GOAL, result, "CPU")

    if not args.no_hashed:
        hashed = [(START, 7, "start"), (KIWIPETE, 6, "kiwipete")]
        one = ("--hash", "256", "--threads", "1")
        two = ("--hash", "256", "--threads", "2")
        if args.base:
            for fen, depth, name in hashed:
                new, old = ox88_perft(args.ox88, fen, depth, one), ox88_perft(args.base, fen, depth, one)
                old.label = "base " + old.label
                result = pairs(new, old, args.runs, cpu)
                row(f"{name} perft {depth}, --hash 256 --threads 1: base / ox88", HASHED_GOAL, result, "CPU")
        else:
            print("no --base build: the rows against an older ox88 are skipped")
        for fen, depth, name in hashed:
            result = pairs(ox88_perft(args.ox88, fen, depth, two), ox88_perft(args.ox88, fen, depth, one), args.runs, wall)
            row(f"{name} perft {depth}, --hash 256: 1 thread / 2 threads", THREADS_GOAL, result, "wall")

    if not args.no_deep:
        deep = ox88_perft(args.ox88, START, 8, ("--hash", "1024", "--threads", "2"))
        times = [deep.timed() for _ in range(args.deep_runs)]
        seconds = statistics.median(wall(t) for t in times)
        verdict = "ok" if seconds <= DEEP_GOAL_S else "ABOVE GOAL"
        print(f"{'start perft 8, --hash 1024 --threads 2, wall seconds':<62} {seconds:6.2f}  "
              f"(goal <= {DEEP_GOAL_S}, {verdict}; CPU {statistics.median(cpu(t) for t in times):.2f} s)")


if __name__ == "__main__":
    main()
