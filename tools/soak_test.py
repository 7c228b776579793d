#!/usr/bin/env python3
"""Tests of the soak's checker, plan reader and Chess960 numbering, on hand-written games.

    python3 tools/soak_test.py    (needs python-chess: pip install chess)
"""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chess  # noqa: E402
import fuzz_hour  # noqa: E402
import soak  # noqa: E402
import soak_check  # noqa: E402
import soak_play  # noqa: E402


def pgn(moves, result, termination="normal", white="ox88", black="stockfish", extra=""):
    return (f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
            f'[Termination "{termination}"]\n{extra}\n{moves} {result}\n\n')


def check(text):
    return soak_check.check_text(io.StringIO(text), "ox88")


FOOLS_MATE = "1. f3 e5 2. g4 Qh4#"


class Checker(unittest.TestCase):
    def assertClean(self, counts, games=1):
        self.assertEqual(counts["games"], games)
        self.assertEqual(counts["inconsistent"], [])
        self.assertEqual(sum(counts["engine"].values()), 0)
        self.assertEqual(sum(counts["opponent"].values()), 0)

    def test_a_mate_with_its_result_is_good(self):
        self.assertClean(check(pgn(FOOLS_MATE, "0-1")))

    def test_a_threefold_repetition_is_a_draw(self):
        self.assertClean(check(pgn("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8", "1/2-1/2")))

    def test_the_wrong_result_is_inconsistent(self):
        counts = check(pgn(FOOLS_MATE, "1-0"))
        self.assertEqual(len(counts["inconsistent"]), 1)
        self.assertIn("gives 0-1", counts["inconsistent"][0])

    def test_a_draw_the_position_does_not_give_is_inconsistent(self):
        counts = check(pgn("1. e4 e5 2. Nf3 Nc6", "1/2-1/2"))
        self.assertEqual(len(counts["inconsistent"]), 1)

    def test_an_illegal_move_in_the_game_is_inconsistent(self):
        # Cut at the illegal move, the game would end in a threefold repetition, as its result says.
        counts = check(pgn("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Ke3 Nc6", "1/2-1/2"))
        self.assertEqual(len(counts["inconsistent"]), 1)
        self.assertIn("Ke3", counts["inconsistent"][0])

    def test_a_time_forfeit_is_the_losers_fault(self):
        counts = check(pgn("1. e4 e5 2. Nf3", "0-1", "time forfeit"))
        self.assertEqual(counts["inconsistent"], [])
        self.assertEqual(counts["engine"]["timeloss"], 1)
        self.assertEqual(sum(counts["opponent"].values()), 0)
        counts = check(pgn("1. e4 e5 2. Nf3", "1-0", "time forfeit"))
        self.assertEqual(counts["opponent"]["timeloss"], 1)
        self.assertEqual(sum(counts["engine"].values()), 0)

    def test_a_drawn_flag_is_charged_to_the_side_that_moved_last(self):
        counts = check(pgn("1. e4 e5 2. Nf3", "1/2-1/2", "time forfeit", white="stockfish", black="ox88"))
        self.assertEqual(counts["opponent"]["timeloss"], 1)
        self.assertEqual(sum(counts["engine"].values()), 0)

    def test_each_termination_has_its_kind(self):
        for termination, kind in (("illegal move", "illegal"), ("abandoned", "crash"),
                                  ("stalled connection", "stall"), ("rules infraction", "illegal"),
                                  ("something else", "other")):
            counts = check(pgn("1. e4 e5", "0-1", termination))
            self.assertEqual(counts["engine"][kind], 1, termination)
            self.assertEqual(sum(counts["engine"].values()), 1, termination)

    def test_a_fault_after_the_game_was_over_is_inconsistent(self):
        counts = check(pgn(FOOLS_MATE, "0-1", "abandoned"))
        self.assertEqual(len(counts["inconsistent"]), 1)

    def test_an_unfinished_game_is_a_fault(self):
        counts = check(pgn("1. e4 e5", "*"))
        self.assertEqual(counts["engine"]["other"], 1)

    def test_an_adjudication_needs_no_final_result(self):
        self.assertClean(check(pgn("1. e4 e5", "1/2-1/2", "adjudication")))

    def test_both_ox88_sides_are_ox88(self):
        counts = check(pgn("1. e4 e5 2. Nf3", "1-0", "time forfeit", black="ox88-b"))
        self.assertEqual(counts["engine"]["timeloss"], 1)

    def test_garbled_lines_and_ponder_counts_come_from_the_tags(self):
        extra = '[WhiteGarbled "2"]\n[BlackGarbled "1"]\n[WhitePonderHits "5"]\n[WhitePonderMisses "3"]'
        counts = check(pgn(FOOLS_MATE, "0-1", extra=extra))
        self.assertEqual(counts["engine"]["garbled"], 2)
        self.assertEqual(counts["opponent"]["garbled"], 1)
        self.assertEqual((counts["ponderhit"], counts["pondermiss"]), (5, 3))

    def test_a_chess960_game_is_read_with_its_castling(self):
        # Position 192, BBQNRKNR: once the g-knights are out, O-O puts the king on g1 and the
        # rook on f1, a castling standard chess does not have.
        fen = "bbqnrknr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRKNR w KQkq - 0 1"
        moves = "1. Nf3 Nf6 2. O-O O-O"
        text = pgn(moves, "1/2-1/2", "adjudication", extra=f'[Variant "Chess960"]\n[SetUp "1"]\n[FEN "{fen}"]')
        self.assertClean(check(text))
        counts = check(text.replace(f'[FEN "{fen}"]', ""))
        self.assertEqual(len(counts["inconsistent"]), 1, "from the standard start O-O is illegal")


    def test_the_markdown_table_has_a_line_per_row_with_its_settings_and_faults(self):
        with tempfile.TemporaryDirectory() as folder:
            row = os.path.join(folder, "fc-hash1")
            os.makedirs(row)
            with open(os.path.join(row, "row.txt"), "w", encoding="utf-8") as f:
                f.write("fc-hash1 fastchess ox88 toga2 tc=1+0.01 games=2 conc=2 each.Hash=1 "
                        "'each.Move Overhead=0'\n")
            with open(os.path.join(row, "part-000.pgn"), "w", encoding="utf-8") as f:
                f.write(pgn(FOOLS_MATE, "0-1") + pgn("1. e4", "0-1", "time forfeit", black="toga2"))
            rows = soak_check.check_folder(folder, "ox88")
            total = check("")
            for counts in rows.values():
                soak_check.add(total, counts)
            lines = soak_check.markdown(rows, total, folder, "ox88").splitlines()
        self.assertEqual(len(lines), 4)
        self.assertEqual(lines[2], "| fc-hash1 | fastchess | ox88 – toga2 | 1+0.01 | each.Hash=1, each.Move Overhead=0 | 2 | "
                                   "timeloss 1 | 0 | – |")
        self.assertIn("**2**", lines[3])


# The test data folder (docs/tests.md), for its Syzygy tables.
DATA = os.environ.get("OX88_DATA") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared")
TABLES = os.path.join(DATA, "syzygy")
# Two queens against a king, Black to move: a sure win shuffled into a threefold repetition,
# and the same position mated.
TWO_QUEENS = '[FEN "k7/8/8/8/8/2K5/6q1/7q b - - 33 93"]\n[SetUp "1"]'
SHUFFLE = "93... Kb8 94. Kd3 Ka8 95. Kc3 Kb8 96. Kd3 Ka8 97. Kc3"
MATED = "93... Qc6 94. Kb3 Qb1+ 95. Ka3 Qa6#"


@unittest.skipUnless(os.path.isdir(TABLES), f"needs the Syzygy tables in {TABLES}")
class TablebaseWins(unittest.TestCase):
    def setUp(self):
        import chess.syzygy

        self.tables = chess.syzygy.open_tablebase(TABLES)

    def tearDown(self):
        self.tables.close()

    def counts(self, moves, result, with_tables):
        text = pgn(moves, result, white="stockfish", black="ox88", extra=TWO_QUEENS)
        return soak_check.check_text(io.StringIO(text), "ox88", self.tables, with_tables)

    def test_a_sure_win_given_away_is_a_fault_of_the_side_with_tables(self):
        counts = self.counts(SHUFFLE, "1/2-1/2", {"ox88"})
        self.assertEqual(counts["inconsistent"], [])
        self.assertEqual(counts["engine"]["tbwin"], 1)
        self.assertEqual(sum(counts["opponent"].values()), 0)

    def test_no_fault_without_tables_or_when_the_win_is_taken(self):
        self.assertEqual(self.counts(SHUFFLE, "1/2-1/2", set())["engine"]["tbwin"], 0)
        counts = self.counts(MATED, "0-1", {"ox88"})
        self.assertEqual(counts["inconsistent"], [])
        self.assertEqual(counts["engine"]["tbwin"], 0)

    def test_the_sides_with_tables_come_from_the_row(self):
        with tempfile.TemporaryDirectory() as folder:
            for row, line, names in (
                ("r1", "r1 python ox88 ox88 tc=1+0.01 'each.SyzygyPath=$SYZYGY'", {"ox88", "ox88-b"}),
                ("r2", "r2 fastchess ox88 stockfish tc=1+0.01 a.SyzygyPath=/t", {"ox88"}),
                ("r3", "r3 fastchess ox88 stockfish tc=1+0.01 b.SyzygyPath=/t", {"stockfish"}),
                ("r4", "r4 fastchess ox88 ox88 tc=1+0.01 'b.SyzygyPath=<empty>' each.Hash=1", set()),
            ):
                os.makedirs(os.path.join(folder, row))
                with open(os.path.join(folder, row, "row.txt"), "w", encoding="utf-8") as f:
                    f.write(line)
                self.assertEqual(soak_check.names_with_tables(folder, row), names, line)


FAKE_ENGINE = """
import sys, time
import chess
mode, board, goes, pondering, clears = sys.argv[1], chess.Board(), 0, False, 0


def answer(board):
    move = next(iter(board.legal_moves))
    board.push(move)
    replies = list(board.legal_moves)
    # The opponent ("ok") plays its first legal move: predict it, or another one.
    guess = replies[0 if mode == "ponder-hit" else -1] if replies else None
    print("bestmove " + move.uci() + (" ponder " + guess.uci() if guess else ""), flush=True)


for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    if w[0] == "uci":
        print("id name fake")
        print("option name Ponder type check default false")
        print("option name Threads type spin default 1 min 1 max 4")
        print("option name Clear Hash type button")
        print("uciok", flush=True)
    elif w[:4] == ["setoption", "name", "Clear", "Hash"]:
        clears += 1
    elif w[0] == "isready":
        print("readyok", flush=True)
    elif w[0] == "position":
        board = chess.Board() if w[1] == "startpos" else chess.Board(" ".join(w[2:8]))
        for m in w[w.index("moves") + 1:] if "moves" in w else []:
            board.push_uci(m)
    elif w[0] == "go" and "ponder" in w:
        pondering = True
    elif w[0] in ("ponderhit", "stop") and pondering:
        pondering = False
        answer(board)
    elif w[0] == "go" and mode.startswith("ponder"):
        answer(board)
    elif w[0] == "go":
        goes += 1
        move = next(iter(board.legal_moves)).uci()
        if goes == 2 and mode == "illegal":
            move = "e1e5"
        elif goes == 2 and mode == "exit":
            sys.exit(3)
        elif goes == 2 and mode == "stall":
            continue
        elif goes == 2 and mode == "late":
            time.sleep(1.5)
        elif goes == 2 and mode == "garbled":
            print("info depth x score cp zz", flush=True)
        elif mode == "clear" and clears != (goes - 1) // 2:
            # asked with clearhash=2: a Clear Hash before each of its odd moves after the first
            move = "e1e5"
        print("bestmove " + move, flush=True)
    elif w[0] == "quit":
        break
"""


class Client(unittest.TestCase):
    """soak_play.py against a fake engine that does one thing wrong on its second move."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.engine = os.path.join(cls.dir.name, "fake.py")
        with open(cls.engine, "w", encoding="utf-8") as f:
            f.write(FAKE_ENGINE)
        cls.book = os.path.join(cls.dir.name, "book.epd")
        with open(cls.book, "w", encoding="utf-8") as f:
            f.write(chess.Board().epd() + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def play(self, mode, ponder=False, options=()):
        out = os.path.join(self.dir.name, mode + "".join(options) + ".pgn")
        cmd = lambda m: f"cmd={sys.executable} {self.engine} {m}"
        run = subprocess.run(
            [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "soak_play.py"),
             "--engine", "name=ox88", cmd(mode), *options, *(["ponder"] if ponder else []),
             "--engine", "name=other", cmd("ok"), "--tc", "1+0",
             "--games", "1", "--openings", self.book, "--pgn", out, "--ply-cap", "10", "--stall-s", "1"],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(out, encoding="utf-8") as f:
            return check(f.read())

    def assertFault(self, mode, kind):
        counts = self.play(mode)
        self.assertEqual(counts["games"], 1)
        self.assertEqual(counts["inconsistent"], [])
        self.assertEqual(counts["engine"][kind], 1, counts)
        self.assertEqual(sum(counts["engine"].values()), 1, counts)
        self.assertEqual(sum(counts["opponent"].values()), 0, counts)

    def test_a_good_game_has_no_fault(self):
        counts = self.play("ok")
        self.assertEqual((counts["games"], counts["inconsistent"]), (1, []))
        self.assertEqual(sum(counts["engine"].values()) + sum(counts["opponent"].values()), 0)

    def test_an_illegal_bestmove(self):
        self.assertFault("illegal", "illegal")

    def test_an_engine_that_exits(self):
        self.assertFault("exit", "crash")

    def test_an_engine_that_never_answers(self):
        self.assertFault("stall", "stall")

    def test_a_late_move(self):
        self.assertFault("late", "timeloss")

    def test_ponderhits_and_misses_are_counted(self):
        # ox88 moves at plies 1, 3, 5, 7, 9; the opponent's four replies before ox88's next move
        # are ponderhits when predicted, and all five replies misses when not.
        counts = self.play("ponder-hit", ponder=True)
        self.assertEqual((counts["ponderhit"], counts["pondermiss"]), (4, 0), counts)
        counts = self.play("ponder-miss", ponder=True)
        self.assertEqual((counts["ponderhit"], counts["pondermiss"]), (0, 5), counts)

    def test_an_option_given_on_the_command_line_keeps_the_ponderhits(self):
        counts = self.play("ponder-hit", ponder=True, options=["option.Threads=2"])
        self.assertEqual((counts["ponderhit"], counts["pondermiss"]), (4, 0), counts)

    def test_clear_hash_is_pressed_between_moves(self):
        # ox88 moves five times (ply cap 10): Clear Hash before its third and fifth moves, or the
        # fake engine plays an illegal move.
        counts = self.play("clear", options=["clearhash=2"])
        self.assertEqual((counts["games"], counts["inconsistent"]), (1, []))
        self.assertEqual(sum(counts["engine"].values()) + sum(counts["opponent"].values()), 0, counts)
        self.assertEqual(counts["hashclears"], 2, counts)

    def test_a_line_python_chess_cannot_parse(self):
        self.assertFault("garbled", "garbled")


class Plan(unittest.TestCase):
    def test_the_standard_numbering(self):
        self.assertEqual(soak.chess960_fen(518).split()[0], chess.STARTING_BOARD_FEN)
        for n in range(960):
            self.assertEqual(soak.chess960_fen(n).split()[0], chess.Board.from_chess960_pos(n).board_fen(), n)

    def test_the_release_plan_reads_and_has_ten_thousand_games(self):
        rows = soak.read_plan(os.path.join(os.path.dirname(os.path.abspath(__file__)), "soak_plan.txt"))
        self.assertGreaterEqual(sum(r["games"] for r in rows), 10000)

    def test_bad_rows_are_refused(self):
        for line in ("r fastchess ox88 ox88 games=2", "r fastchess ox88 ox88 games=2 tc=1+x",
                     "r fastchess ox88 ox88 games=2 tc=1 ponder=both", "r telnet ox88 ox88 games=2 tc=1",
                     "r python ox88 crafty games=2 tc=1", "r python ox88 ox88 games=0 tc=1",
                     "r python ox88 ox88 games=2 tc=1 chunk=3", "r python ox88 ox88 games=2 tc=1 colour=red",
                     "r fastchess ox88 ox88 games=2 tc=1 clearhash=5", "r python ox88 ox88 games=2 tc=1 clearhash=0",
                     "r python ox88 ox88 games=2 tc=1 clearhash=5 ponder=both"):
            with self.assertRaises(soak.PlanError, msg=line):
                soak.parse_row(line, 1)
        self.assertEqual(soak.parse_row("r python ox88 ox88 games=2 tc=1 clearhash=5 ponder=b", 1)["clearhash"], 5)

    def test_plan_variables_must_be_set(self):
        self.assertEqual(soak.expand("$ROW/a.log", {"ROW": "r"}), "r/a.log")
        for variables in ({}, {"SYZYGY": ""}):
            with self.assertRaises(soak.PlanError):
                soak.expand("$SYZYGY", variables)

    def test_a_pause_file_holds_the_next_part_until_it_is_gone(self):
        with tempfile.TemporaryDirectory() as results:
            started = time.monotonic()
            soak.wait_while_paused(results, poll=0.01)
            self.assertLess(time.monotonic() - started, 0.5)
            pause = os.path.join(results, "PAUSE")
            open(pause, "w").close()
            remover = threading.Timer(0.3, os.remove, (pause,))
            remover.start()
            started = time.monotonic()
            with contextlib.redirect_stdout(io.StringIO()):
                soak.wait_while_paused(results, poll=0.01)
            waited = time.monotonic() - started
            remover.join()
            self.assertGreaterEqual(waited, 0.3)

    def test_clocks(self):
        self.assertEqual(soak_play.parse_tc("40/10"), (40, 10.0, 0.0))
        self.assertEqual(soak_play.parse_tc("0.5+0.005"), (None, 0.5, 0.005))
        for bad in ("0+1", "x", "0/10", "10+-1"):
            with self.assertRaises(soak_play.Usage):
                soak_play.parse_tc(bad)


class FuzzHour(unittest.TestCase):
    """The fuzz hour sums what the fuzz tests print; a summary it cannot read is not counted."""

    UCI = (".3000 lines: 927 parsed (812 executed, 383 failed), 1951 rejected, 195 go: 12 searched, "
           "13 bestmove (one more for quit); 3 perft or bench\n"
           "60 steps in 30.6 s: 15 go, 3 quit, 98 search reports, 1 counts checked, 7 bench positions "
           "(0 benches waited for)\n")
    PIPES = ("seed 199914 (regression): 312 lines in 9.1 s, worst readyok 12.5ms, faults {}\n"
             'seed 5150: 290 lines in 8.0 s, worst readyok 180ms, faults {"late-readyok": 2}\n')

    def test_counts_are_summed(self):
        t = fuzz_hour.new_totals()
        self.assertTrue(fuzz_hour.read_output("uci_fuzz", self.UCI, t))
        self.assertTrue(fuzz_hour.read_output("uci_fuzz", self.UCI, t))
        self.assertEqual((t["uci_lines"], t["uci_searches"], t["uci_tasks"]), (6000, 24, 6))
        self.assertEqual((t["race_steps"], t["race_gos"], t["race_counts"], t["race_benches"]), (120, 30, 2, 14))
        self.assertTrue(fuzz_hour.read_output("fuzz_parsers", "test result: ok. 8 passed; 0 failed; 0 ignored\n", t))
        self.assertEqual(t["parser_tests"], 8)
        self.assertEqual(t["faults"], [])

    def test_a_seed_with_faults_is_a_fault(self):
        t = fuzz_hour.new_totals()
        self.assertTrue(fuzz_hour.read_output("search_fuzz", self.PIPES, t))
        self.assertEqual((t["pipe_seeds"], t["pipe_lines"]), (2, 602))
        self.assertEqual(len(t["faults"]), 1)
        self.assertIn("5150", t["faults"][0])

    def test_output_without_a_summary_is_not_counted(self):
        t = fuzz_hour.new_totals()
        self.assertFalse(fuzz_hour.read_output("uci_fuzz", "thread 'main' panicked at tests/uci_fuzz.rs\n", t))
        self.assertEqual(t["uci_lines"], 0)


if __name__ == "__main__":
    unittest.main()
