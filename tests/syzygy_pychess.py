#!/usr/bin/env python3
"""ox88's Syzygy probing against python-chess's prober (chess.syzygy), position by position.

    python3 tests/syzygy_pychess.py target/release/ox88 [--tables DIR] [--count 10000] [--seed 12]

The tables default to `syzygy/` of the external data folder: $OX88_DATA, else ../shared beside
the checkout.

Makes `count` random legal positions of 3 and 4 pieces (seeded: the same run every time), a
tenth of them right after a double pawn push so that en passant comes in, asks both probers
for WDL (as after a capture or pawn move) and DTZ, and fails on any difference or on any
position one of them cannot probe. `ox88 tb-probe --path DIR` reads the FENs on stdin.

Exit codes: 0 all agree, 1 a mismatch, 2 the tables are missing (a loud message; CI skips).
"""
import argparse
import os
import random
import subprocess
import sys
from pathlib import Path

try:
    import chess
    import chess.syzygy
except ImportError:
    sys.exit("needs python-chess: pip install chess")

# Kinds beside the two kings, with weights: pawns are common, as in real endings.
KINDS = [chess.PAWN] * 3 + [chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN] * 2


def random_position(rng):
    """A legal position with both kings and one or two more pieces, side to move at random."""
    while True:
        board = chess.Board(None)
        squares = rng.sample(chess.SQUARES, 4)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq in squares[2:2 + rng.choice((1, 2))]:
            kind = rng.choice(KINDS)
            if kind == chess.PAWN and chess.square_rank(sq) in (0, 7):
                kind = chess.KNIGHT
            board.set_piece_at(sq, chess.Piece(kind, rng.choice((chess.WHITE, chess.BLACK))))
        board.turn = rng.choice((chess.WHITE, chess.BLACK))
        if board.is_valid():
            return board


def en_passant_position(rng):
    """Kings and two pawns side by side, one of them just pushed two squares: the side to move
    may take en passant."""
    while True:
        board = chess.Board(None)
        mover = rng.choice((chess.WHITE, chess.BLACK))
        file = rng.randrange(8)
        beside = file + rng.choice((-1, 1))
        if not 0 <= beside < 8:
            continue
        rank = 4 if mover == chess.WHITE else 3  # the pushed pawn stands on the fifth / fourth rank
        pushed = chess.square(file, rank)
        board.set_piece_at(pushed, chess.Piece(chess.PAWN, not mover))
        board.set_piece_at(chess.square(beside, rank), chess.Piece(chess.PAWN, mover))
        free = [sq for sq in chess.SQUARES if board.piece_at(sq) is None]
        wk, bk = rng.sample(free, 2)
        board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
        board.turn = mover
        board.ep_square = chess.square(file, rank + (1 if mover == chess.WHITE else -1))
        if board.is_valid() and board.has_legal_en_passant():
            return board


def positions(count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        out.append(en_passant_position(rng) if len(out) % 10 == 9 else random_position(rng))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("engine")
    data = os.environ.get("OX88_DATA") or Path(__file__).resolve().parent.parent.parent / "shared"
    ap.add_argument("--tables", default=str(Path(data) / "syzygy"))
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()

    tables = Path(args.tables)
    if not any(tables.glob("*.rtbw")):
        print(f"SKIPPED: no Syzygy tables in {tables}: ox88's probing was NOT compared with python-chess's",
              flush=True)
        return 2

    boards = positions(args.count, args.seed)
    fens = [b.fen() for b in boards]
    run = subprocess.run([args.engine, "tb-probe", "--path", str(tables)], input="\n".join(fens) + "\n",
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        print(f"FAIL: ox88 tb-probe exited with {run.returncode}: {run.stderr.strip()}")
        return 1
    answers = run.stdout.splitlines()
    if len(answers) != len(fens):
        print(f"FAIL: {len(fens)} positions sent, {len(answers)} answers")
        return 1

    mismatches = []
    with_ep = sum(1 for b in boards if b.ep_square is not None)
    outcomes = {}
    with chess.syzygy.open_tablebase(str(tables)) as tb:
        for board, fen, answer in zip(boards, fens, answers):
            try:
                expected = f"{tb.probe_wdl(board)} {tb.probe_dtz(board)}"
            except (KeyError, chess.syzygy.MissingTableError) as e:
                expected = f"python-chess cannot probe: {e}"
            if answer != expected:
                mismatches.append(f"{fen}: ox88 '{answer}', python-chess '{expected}'")
            wdl = expected.split()[0]
            outcomes[wdl] = outcomes.get(wdl, 0) + 1

    shown = ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items()))
    print(f"syzygy: {len(fens)} positions ({with_ep} with an en-passant square; WDL counts {shown}) compared "
          f"with python-chess {chess.__version__}: {len(fens) - len(mismatches)} agree, {len(mismatches)} differ")
    for m in mismatches[:20]:
        print(f"  {m}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
