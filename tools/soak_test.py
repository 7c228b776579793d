#!/usr/bin/env python3
"""Tests of the soak's checker, plan reader and Chess960 numbering, on hand-written games.

    python3 tools/soak_test.py    (needs python-chess: pip install chess)
"""
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chess  # noqa: E402
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
                     "r python ox88 ox88 games=2 tc=1 chunk=3", "r python ox88 ox88 games=2 tc=1 colour=red"):
            with self.assertRaises(soak.PlanError, msg=line):
                soak.parse_row(line, 1)

    def test_plan_variables_must_be_set(self):
        self.assertEqual(soak.expand("$ROW/a.log", {"ROW": "r"}), "r/a.log")
        for variables in ({}, {"SYZYGY": ""}):
            with self.assertRaises(soak.PlanError):
                soak.expand("$SYZYGY", variables)

    def test_clocks(self):
        self.assertEqual(soak_play.parse_tc("40/10"), (40, 10.0, 0.0))
        self.assertEqual(soak_play.parse_tc("0.5+0.005"), (None, 0.5, 0.005))
        for bad in ("0+1", "x", "0/10", "10+-1"):
            with self.assertRaises(soak_play.Usage):
                soak_play.parse_tc(bad)


if __name__ == "__main__":
    unittest.main()
