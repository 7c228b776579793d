#!/usr/bin/env python3
"""Tests of tools/spsa.py without games: the schedule, the update on a synthetic objective,
resuming from the state file, and two iterations through a fake runner that writes a PGN of
chosen results. `python3 tools/spsa_test.py` (cargo test runs it: tests/spsa_driver.rs)."""
import json
import math
import os
import random
import stat
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spsa  # noqa: E402

INPUTS = "alpha, int, 50, 0, 100, 5, 0.002\nbeta, int, 10, 0, 40, 2, 0.002\ngamma, int, 200, 100, 300, 10, 0.002\n"
OPTIMUM = {"alpha": 70, "beta": 25, "gamma": 150}


def synthetic_result(params, plus, minus, pairs, rng):
    """Games between two sets whose strength falls with the squared scaled distance from
    OPTIMUM: the nearer set wins more often (Elo-like logistic)."""
    def strength(values):
        return -sum(((v - OPTIMUM[p.name]) / (p.hi - p.lo) * 10) ** 2 for p, v in zip(params, values))

    edge = strength(plus) - strength(minus)
    p_win = 1 / (1 + math.exp(-edge))
    w = d = l = 0
    for _ in range(2 * pairs):
        x = rng.random()
        if x < 0.3:
            d += 1
        elif rng.random() < p_win:
            w += 1
        else:
            l += 1
    return w, d, l


def distance(params):
    return math.sqrt(sum(((p.value - OPTIMUM[p.name]) / (p.hi - p.lo)) ** 2 for p in params))


class Schedule(unittest.TestCase):
    def test_the_last_iteration_has_c_end_and_r_end(self):
        # OpenBench's mapping: c_end and r_end are what the run ends with.
        for p in spsa.parse_inputs(INPUTS):
            for n in (100, 1000, 20000):
                c_k, r_k = spsa.schedule(p, n, n)
                self.assertAlmostEqual(c_k, p.c_end, places=9)
                self.assertAlmostEqual(r_k, p.r_end, places=12)
                c_1, r_1 = spsa.schedule(p, 1, n)
                self.assertGreater(c_1, c_k)
                # The step a_k = r_k * c_k^2 shrinks over the run.
                self.assertGreater(r_1 * c_1**2, r_k * c_k**2)

    def test_an_integer_always_moves_by_half_a_unit_at_least(self):
        p = spsa.parse_inputs("x, int, 3, 1, 6, 0.2, 0.002")[0]
        self.assertEqual(spsa.schedule(p, 500, 500)[0], 0.5)

    def test_bad_inputs_are_refused(self):
        for text in ["", "x, float, 1, 0, 2, 1, 0.002", "x, int, 5, 6, 9, 1, 0.002", "x, int, a, 0, 9, 1, 0.002",
                     "x, int, 5, 0, 9, 0, 0.002", "x, int, 5, 0, 9"]:
            with self.assertRaises(ValueError, msg=text):
                spsa.parse_inputs(text)


class Update(unittest.TestCase):
    def test_a_win_of_the_plus_set_moves_each_value_along_its_sign(self):
        params = spsa.parse_inputs(INPUTS)
        before = [p.value for p in params]
        flips, plus, minus, steps = spsa.perturb(params, 1, 100, random.Random(3))
        for p, f, a, b in zip(params, flips, plus, minus):
            self.assertTrue(p.lo <= a <= p.hi and p.lo <= b <= p.hi)
            self.assertEqual(a > b, f > 0, (p.name, a, b, f))
        spsa.update(params, flips, steps, 5, 2)
        for p, v, f, (c_k, r_k) in zip(params, before, flips, steps):
            self.assertAlmostEqual(p.value - v, r_k * c_k * 3 * f)

    def test_values_stay_in_their_ranges(self):
        params = spsa.parse_inputs("x, int, 99, 0, 100, 5, 2\n")
        for k in range(1, 50):
            flips, _, _, steps = spsa.perturb(params, k, 50, random.Random(k))
            spsa.update(params, [1] * len(flips), steps, 16, 0)
            self.assertLessEqual(params[0].value, 100)
            spsa.update(params, [-1] * len(flips), steps, 16, 0)
            self.assertGreaterEqual(params[0].value, 0)

    def test_a_synthetic_objective_is_approached(self):
        params = spsa.parse_inputs(INPUTS)
        start = distance(params)
        rng, games = random.Random(7), random.Random(8)
        iterations = 600
        for k in range(1, iterations + 1):
            flips, plus, minus, steps = spsa.perturb(params, k, iterations, rng)
            w, _, l = synthetic_result(params, plus, minus, 8, games)
            spsa.update(params, flips, steps, w, l)
        self.assertLess(distance(params), start / 3, [(p.name, round(p.value, 1)) for p in params])


FAKE_RUNNER = r'''#!/usr/bin/env python3
# Plays no game: writes a PGN in which the engine named "plus" wins every game.
import sys
args = sys.argv[1:]
pgn = next(a[len("file="):] for a in args if a.startswith("file=") and a.endswith(".pgn"))
rounds = int(args[args.index("-rounds") + 1])
with open(sys.argv[0] + ".args", "a") as log:
    log.write(" ".join(args) + "\n")
with open(pgn, "w") as out:
    for i in range(2 * rounds):
        white, black = ("plus", "minus") if i % 2 == 0 else ("minus", "plus")
        result = "1-0" if white == "plus" else "0-1"
        out.write('[White "%s"]\n[Black "%s"]\n[Result "%s"]\n[Termination "normal"]\n\n1. e4 %s\n\n'
                  % (white, black, result, result))
'''


class Run(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.runner = os.path.join(self.dir, "fastchess")
        with open(self.runner, "w") as fh:
            fh.write(FAKE_RUNNER)
        os.chmod(self.runner, os.stat(self.runner).st_mode | stat.S_IEXEC)
        self.inputs = os.path.join(self.dir, "inputs.txt")
        with open(self.inputs, "w") as fh:
            fh.write(INPUTS)
        self.book = os.path.join(self.dir, "book.epd")
        with open(self.book, "w") as fh:
            fh.write("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1;\n")
        self.state = os.path.join(self.dir, "run.json")
        os.environ["RUNNER"] = self.runner

    def run_driver(self, *extra):
        return spsa.main(["/bin/true", "--state", self.state, "--inputs", self.inputs, "--book", self.book,
                          "--iterations", "50", "--pairs", "3", "--quiet", *extra])

    def test_two_iterations_with_a_fake_runner_then_a_resume(self):
        self.assertEqual(self.run_driver("--run", "1"), 0)
        self.assertEqual(self.run_driver("--run", "1"), 0)
        with open(self.state) as fh:
            saved = json.load(fh)
        self.assertEqual(saved["iteration"], 2)
        self.assertEqual(saved["history"], [{"k": 1, "w": 6, "d": 0, "l": 0}, {"k": 2, "w": 6, "d": 0, "l": 0}])
        # The same two iterations replayed from a fresh start give the same values.
        params = spsa.parse_inputs(INPUTS)
        rng = random.Random(1)
        for k in (1, 2):
            flips, plus, minus, steps = spsa.perturb(params, k, 50, rng)
            spsa.update(params, flips, steps, 6, 0)
        self.assertEqual([p["value"] for p in saved["params"]], [p.value for p in params])
        with open(self.runner + ".args") as fh:
            calls = fh.read().splitlines()
        self.assertEqual(len(calls), 2)
        for name in ("alpha", "beta", "gamma"):
            self.assertIn("option.%s=" % name, calls[0])
        self.assertIn("name=plus", calls[0])
        self.assertIn("name=minus", calls[0])

    def test_a_node_limit_replaces_the_clock(self):
        self.assertEqual(self.run_driver("--run", "1"), 0)
        self.assertEqual(self.run_driver("--run", "1", "--nodes", "6000"), 0)
        with open(self.runner + ".args") as fh:
            clock, nodes = fh.read().splitlines()
        self.assertIn("tc=8+0.08", clock)
        self.assertNotIn("nodes=", clock)
        self.assertIn("tc=inf nodes=6000", nodes)
        self.assertNotIn("timemargin", nodes)
        with self.assertRaises(SystemExit):
            self.run_driver("--nodes", "0")

    def test_a_finished_run_plays_no_more(self):
        self.assertEqual(self.run_driver("--iterations", "2"), 0)
        self.assertEqual(self.run_driver("--show"), 0)
        with open(self.runner + ".args") as fh:
            self.assertEqual(len(fh.read().splitlines()), 2)


if __name__ == "__main__":
    unittest.main()
