#!/usr/bin/env python3
"""Perft speed of ox88 against Stockfish's `go perft`, an older ox88 build, and itself on more threads.

    tools/perft_speed.py [--ox88 target/release/ox88] [--base OLD_OX88] [--stockfish PATH]
                         [--runs 5] [--deep-runs 1] [--no-deep]

Every figure is a whole process timed from outside: user + system seconds of the finished child
as the operating system counts them (CPU), or a monotonic clock around it (wall), start-up and
table set-up included. Two commands compared are run in turn, A B A B ..., after one warm-up run
of each, and the ratio is the median of the per-pair ratios, so a change of the machine's speed
during the call moves both sides of a pair. Ratios are the other command's time over ox88's:
above 1 means ox88 is faster. Every run's node count is checked against the published one.

Rows (the goals of the perft speed work in docs/perft.md):
  - start position perft 6 and Kiwipete perft 5, one thread, no table: ox88 against Stockfish's
    `go perft` (its start-up, network loading included, counted), by CPU time;
  - start position perft 7 and Kiwipete perft 6 with `--hash 256 --threads 1`: ox88 against
    the `--base` build (skipped without it), by CPU time;
  - the same with `--threads 2` against `--threads 1`, by wall time;
  - start position perft 8 with `--hash 1024 --threads 2`, wall time (skipped with --no-deep).

Stockfish is looked for on PATH and in /usr/games; without it those rows say so and are skipped.
Give the machine to this tool alone: other programs running change the two-thread rows most.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# Published counts (chessprogramming.org, "Perft Results").
COUNTS = {
    (START, 6): 119_060_324,
    (START, 7): 3_195_901_860,
    (START, 8): 84_998_978_956,
    (KIWIPETE, 5): 193_690_690,
    (KIWIPETE, 6): 8_031_647_685,
}


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
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            sys.exit(f"{self.label}: exit code {proc.returncode}")
        found = [line for line in out.splitlines() if line.startswith("Nodes searched:")]
        if not found or int(found[-1].split(":")[1]) != self.nodes:
            sys.exit(f"{self.label}: expected 'Nodes searched: {self.nodes}', got {found[-1:] or 'nothing'}")
        return usage.ru_utime + usage.ru_stime, wall


def ox88_perft(ox88, fen, depth, extra=()):
    argv = [ox88, "perft", str(depth), "--fen", fen, *extra]
    return Command(f"ox88 perft {depth} {' '.join(extra)}".strip(), argv, COUNTS[(fen, depth)])


def stockfish_perft(stockfish, fen, depth):
    script = f"position fen {fen}\ngo perft {depth}\nquit\n"
    return Command(f"stockfish go perft {depth}", [stockfish], COUNTS[(fen, depth)], script)


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
    print(f"{name:<58} {ratio:6.2f}  (goal >= {goal}, {verdict}; ox88 {ta:.3f} s, other {tb:.3f} s {unit})")


def find_stockfish(given):
    if given:
        return given if shutil.which(given) else None
    return shutil.which("stockfish") or shutil.which("/usr/games/stockfish")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ox88", default="target/release/ox88")
    parser.add_argument("--base", help="an older ox88 build for the hashed rows")
    parser.add_argument("--stockfish", help="Stockfish binary (default: on PATH or in /usr/games)")
    parser.add_argument("--runs", type=int, default=5, help="pairs per row (default 5)")
    parser.add_argument("--deep-runs", type=int, default=1, help="runs of perft 8 (default 1)")
    parser.add_argument("--no-deep", action="store_true", help="skip perft 8")
    args = parser.parse_args()
    if not shutil.which(args.ox88):
        sys.exit(f"no ox88 binary at {args.ox88} (cargo build --release)")
    cpu = lambda t: t[0]
    wall = lambda t: t[1]

    stockfish = find_stockfish(args.stockfish)
    if stockfish:
        for fen, depth, goal, name in [(START, 6, 3.0, "start"), (KIWIPETE, 5, 3.5, "Kiwipete")]:
            result = pairs(ox88_perft(args.ox88, fen, depth), stockfish_perft(stockfish, fen, depth), args.runs, cpu)
            row(f"{name} perft {depth}, 1 thread, no hash: Stockfish / ox88", goal, result, "CPU")
    else:
        print("Stockfish not found (--stockfish PATH): its rows are skipped")

    hashed = [(START, 7, "start"), (KIWIPETE, 6, "Kiwipete")]
    one = ("--hash", "256", "--threads", "1")
    two = ("--hash", "256", "--threads", "2")
    if args.base:
        for fen, depth, name in hashed:
            new, old = ox88_perft(args.ox88, fen, depth, one), ox88_perft(args.base, fen, depth, one)
            old.label = "base " + old.label
            row(f"{name} perft {depth}, --hash 256 --threads 1: base / ox88", 1.4, pairs(new, old, args.runs, cpu), "CPU")
    else:
        print("no --base build: the rows against an older ox88 are skipped")
    for fen, depth, name in hashed:
        result = pairs(ox88_perft(args.ox88, fen, depth, two), ox88_perft(args.ox88, fen, depth, one), args.runs, wall)
        row(f"{name} perft {depth}, --hash 256: 1 thread / 2 threads", 1.8, result, "wall")

    if not args.no_deep:
        deep = ox88_perft(args.ox88, START, 8, ("--hash", "1024", "--threads", "2"))
        times = [deep.timed() for _ in range(args.deep_runs)]
        seconds = statistics.median(wall(t) for t in times)
        verdict = "ok" if seconds <= 9.0 else "ABOVE GOAL"
        print(f"{'start perft 8, --hash 1024 --threads 2, wall seconds':<58} {seconds:6.2f}  (goal <= 9, {verdict}; "
              f"CPU {statistics.median(cpu(t) for t in times):.2f} s)")


if __name__ == "__main__":
    main()
