#!/usr/bin/env python3
"""The fuzz hour: the project's own fuzz tests, run again and again with fresh seeds and long
budgets until the time is spent, and their counts summed.

    python3 tools/fuzz_hour.py [--minutes 60] [--markdown FILE] [--log FILE]

Each round runs, with the release profile and fresh seeds:
  * tests/uci_fuzz.rs: OX88_FUZZ_LINES random and mutated lines through the UCI front layer (with
    searches, perft and bench raced by the lines after them) and OX88_RACE_STEPS steps of
    well-formed commands racing many-threaded searches;
  * tests/search_fuzz: the real binary over pipes, fresh seeds for OX88_FUZZ_SECS seconds;
  * tests/fuzz_parsers.rs: the FEN, move and suite-file parsers (proptest draws new cases).
A round that fails is a fault: its seeds and the test's output go to the log, and the run goes
on. At the end it prints the totals (and writes them as a table row with --markdown); the exit
status is 1 when any round failed.

Needs nothing outside the clone. Run it where nothing else competes for the cores: search_fuzz
times `readyok` (CI=true widens its bound, as for shared cores).
"""
import argparse
import datetime
import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = ["uci_fuzz", "search_fuzz", "fuzz_parsers"]

LINES_RE = re.compile(r"^(\d+) lines: (\d+) parsed .*?, (\d+) go: (\d+) searched, (\d+) bestmove.*?; (\d+) perft or bench")
RACE_RE = re.compile(r"^(\d+) steps in [\d.]+ s: (\d+) go, (\d+) quit, (\d+) search reports, (\d+) counts checked, "
                     r"(\d+) bench positions")
SEED_RE = re.compile(r"^seed (\d+)( \(regression\))?: (\d+) lines in [\d.]+ s, worst readyok ([^,]+), faults \{(.*)\}")
CASES_RE = re.compile(r"^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed")


def new_totals():
    return {"rounds": 0, "failed_rounds": 0, "uci_lines": 0, "uci_searches": 0, "uci_tasks": 0,
            "race_steps": 0, "race_gos": 0, "race_counts": 0, "race_benches": 0,
            "pipe_seeds": 0, "pipe_lines": 0, "parser_tests": 0, "seeds": [], "faults": []}


def read_output(test, text, totals):
    """Adds what one test run printed to the totals; returns whether its summary lines were all
    there (a run that printed none of them did not do what the totals claim)."""
    seen = False
    for line in text.splitlines():
        # The harness's progress dots (`--quiet`) share a line with what the tests print.
        line = line.strip().lstrip(".")
        if m := LINES_RE.match(line):
            totals["uci_lines"] += int(m[1])
            totals["uci_searches"] += int(m[4])
            totals["uci_tasks"] += int(m[6])
            seen = True
        elif m := RACE_RE.match(line):
            totals["race_steps"] += int(m[1])
            totals["race_gos"] += int(m[2])
            totals["race_counts"] += int(m[5])
            totals["race_benches"] += int(m[6])
            seen = True
        elif m := SEED_RE.match(line):
            totals["pipe_seeds"] += 1
            totals["pipe_lines"] += int(m[3])
            if m[5].strip():
                totals["faults"].append(f"search_fuzz seed {m[1]}: {m[5].strip()}")
            seen = True
        elif test == "fuzz_parsers" and (m := CASES_RE.match(line)):
            totals["parser_tests"] += int(m[2])
            seen = True
    return seen


def run_test(test, env, log):
    cmd = ["cargo", "test", "--release", "--quiet", "--test", test, "--", "--nocapture", "--test-threads", "1"]
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log.write(f"$ {' '.join(f'{k}={v}' for k, v in env.items() if k.startswith('OX88_'))} {' '.join(cmd)}\n")
    log.write(proc.stdout)
    log.write(f"# exit {proc.returncode} after {time.monotonic() - started:.0f} s\n\n")
    log.flush()
    return proc.returncode, proc.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=60.0, help="time to spend (default 60)")
    ap.add_argument("--lines", type=int, default=400_000, help="OX88_FUZZ_LINES a round")
    ap.add_argument("--steps", type=int, default=1_500, help="OX88_RACE_STEPS a round")
    ap.add_argument("--pipe-secs", type=int, default=300, help="OX88_FUZZ_SECS a round")
    ap.add_argument("--seed", type=int, help="seeds the seeds (default: from the clock)")
    ap.add_argument("--log", default=os.path.join(ROOT, "target", "fuzz-hour.log"))
    ap.add_argument("--markdown", help="append the totals as a row of the fuzz table here")
    args = ap.parse_args()

    build = subprocess.run(["cargo", "test", "--release", "--no-run", "--quiet"] + [a for t in TESTS for a in ("--test", t)],
                           cwd=ROOT)
    if build.returncode != 0:
        sys.exit("fuzz_hour: the tests did not build")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           stdout=subprocess.PIPE, text=True).stdout.strip()
    master = random.Random(args.seed if args.seed is not None else time.time_ns())
    totals = new_totals()
    deadline = time.monotonic() + args.minutes * 60
    os.makedirs(os.path.dirname(os.path.abspath(args.log)), exist_ok=True)
    with open(args.log, "a") as log:
        log.write(f"# fuzz hour on {commit}{' (modified)' if dirty else ''}, {datetime.datetime.now():%Y-%m-%d %H:%M}\n")
        while time.monotonic() < deadline:
            totals["rounds"] += 1
            fuzz_seed, race_seed = master.randrange(1 << 32), master.randrange(1 << 32)
            totals["seeds"] += [fuzz_seed, race_seed]
            failed = False
            for test in TESTS:
                env = dict(os.environ)
                if test == "uci_fuzz":
                    env.update(OX88_FUZZ_LINES=str(args.lines), OX88_FUZZ_SEED=str(fuzz_seed),
                               OX88_RACE_STEPS=str(args.steps), OX88_RACE_SEED=str(race_seed))
                elif test == "search_fuzz":
                    left = max(30, int(deadline - time.monotonic()))
                    env.update(OX88_FUZZ_SECS=str(min(args.pipe_secs, left)))
                code, out = run_test(test, env, log)
                known = len(totals["faults"])
                complete = read_output(test, out, totals)
                if (code != 0 and len(totals["faults"]) == known) or not complete:
                    failed = True
                    what = "failed" if code != 0 else "printed no summary"
                    totals["faults"].append(f"{test} {what} (round {totals['rounds']}, OX88_FUZZ_SEED={fuzz_seed} "
                                            f"OX88_RACE_SEED={race_seed}; see {args.log})")
            totals["failed_rounds"] += failed
            print(summary(totals), flush=True)
    print(summary(totals))
    for f in totals["faults"]:
        print("fault:", f)
    if args.markdown:
        with open(args.markdown, "a") as md:
            md.write(markdown_row(totals, commit, args.minutes) + "\n")
    sys.exit(1 if totals["faults"] else 0)


def summary(t):
    return (f"round {t['rounds']}: {t['uci_lines']:,} lines in-process ({t['uci_searches']:,} searches, "
            f"{t['uci_tasks']:,} perft or bench), {t['race_steps']:,} race steps ({t['race_gos']:,} go, "
            f"{t['race_counts']:,} perft counts checked, {t['race_benches']:,} bench positions), "
            f"{t['pipe_seeds']} pipe seeds ({t['pipe_lines']:,} lines), {t['parser_tests']} parser tests passed; "
            f"faults {len(t['faults'])}")


def markdown_row(t, commit, minutes):
    seeds = f"{len(t['seeds'])} ({t['seeds'][0]}, {t['seeds'][1]}, …)" if len(t["seeds"]) >= 2 else "–"
    return (f"| {commit} | {datetime.date.today():%Y-%m-%d} | {minutes:.0f} min, {t['rounds']} rounds | {seeds}, "
            f"{t['pipe_seeds']} search_fuzz seeds | {t['uci_lines']:,} lines ({t['uci_searches']:,} searches, "
            f"{t['uci_tasks']:,} perft or bench); {t['race_steps']:,} race steps ({t['race_gos']:,} go, "
            f"{t['race_counts']:,} counts, {t['race_benches']:,} bench positions); {t['pipe_lines']:,} lines "
            f"over pipes | {len(t['faults'])} |")


if __name__ == "__main__":
    main()
