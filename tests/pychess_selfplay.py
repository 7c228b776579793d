#!/usr/bin/env python3
"""ox88 against ox88 through python-chess, as a real UCI client drives it.

    python3 tests/pychess_selfplay.py target/release/ox88 [--games 4] [--tc 1+0.05]

Plays complete games at a fast time control with our own clock bookkeeping and exits non-zero
on any fault: an illegal or missing move, a time loss (clock below -margin), a crash, an engine
error, or a game that does not end by the rules (checkmate, stalemate, threefold repetition,
fifty moves, insufficient material). Only at a generous ply cap is a game adjudicated, and that
is reported, not failed. Every other game starts from a different short random opening, and
one engine of each game pondering (go ponder / ponderhit / stop) is exercised too.
"""
import argparse
import random
import sys
import time

try:
    import chess
    import chess.engine
except ImportError:
    sys.exit("needs python-chess: pip install chess")


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def opening(rng, plies):
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        board.push(rng.choice(moves))
    return board if not board.is_game_over() else chess.Board()


LOWEST = {"clock": float("inf"), "think": 0.0}


def play_game(engines, board, base, inc, margin, ply_cap, ponder_side):
    clock = {chess.WHITE: base, chess.BLACK: base}
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            return outcome.termination.name.lower(), outcome.result()
        if board.ply() >= ply_cap:
            return "adjudicated (ply cap)", "1/2-1/2"
        side = board.turn
        limit = chess.engine.Limit(white_clock=max(clock[chess.WHITE], 0), black_clock=max(clock[chess.BLACK], 0),
                                   white_inc=inc, black_inc=inc)
        start = time.monotonic()
        try:
            result = engines[side].play(board, limit, ponder=(side == ponder_side), info=chess.engine.INFO_ALL)
        except chess.engine.EngineTerminatedError as e:
            fail(f"engine crashed at ply {board.ply()} ({board.fen()}): {e}")
        except chess.engine.EngineError as e:
            fail(f"engine error at ply {board.ply()} ({board.fen()}): {e}")
        except chess.engine.TimeoutError:
            fail(f"engine timed out at ply {board.ply()} ({board.fen()})")
        elapsed = time.monotonic() - start
        clock[side] -= elapsed
        LOWEST["clock"] = min(LOWEST["clock"], clock[side])
        LOWEST["think"] = max(LOWEST["think"], elapsed)
        if clock[side] < -margin:
            fail(f"time loss at ply {board.ply()}: clock {clock[side]:.3f} s after {elapsed:.3f} s ({board.fen()})")
        clock[side] += inc
        if result.move is None:
            fail(f"no move at ply {board.ply()} in a position with legal moves ({board.fen()})")
        if result.move not in board.legal_moves:
            fail(f"illegal move {result.move} at ply {board.ply()} ({board.fen()})")
        if result.ponder is not None:
            after = board.copy()
            after.push(result.move)
            if result.ponder not in after.legal_moves:
                fail(f"illegal ponder move {result.ponder} after {result.move} ({after.fen()})")
        board.push(result.move)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engine", help="path of the ox88 binary")
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--tc", default="1+0.05", help="seconds+increment per side")
    ap.add_argument("--margin", type=float, default=0.05, help="seconds a clock may go below zero")
    ap.add_argument("--ply-cap", type=int, default=600)
    ap.add_argument("--seed", type=int, default=88)
    args = ap.parse_args()
    base, _, inc = args.tc.partition("+")
    base, inc = float(base), float(inc or 0)
    rng = random.Random(args.seed)

    engines = {}
    try:
        for color in (chess.WHITE, chess.BLACK):
            e = chess.engine.SimpleEngine.popen_uci([args.engine], timeout=10.0)
            name = e.id.get("name", "")
            if not name.startswith("ox88"):
                fail(f"unexpected id name {name!r}")
            for opt in ("Hash", "Threads", "Move Overhead", "MultiPV", "Ponder", "UCI_Chess960", "Clear Hash"):
                if opt not in e.options:
                    fail(f"option {opt} not declared")
            if e.options["UCI_Chess960"].default is not False or e.options["Ponder"].default is not False:
                fail("check options must default to false")
            e.configure({"Hash": 16, "Threads": 1})
            engines[color] = e
        # A quick analysis round trip: infinite search stopped by the client.
        with engines[chess.WHITE].analysis(chess.Board()) as analysis:
            time.sleep(0.3)
            analysis.stop()
            best = analysis.wait().move
        if best not in chess.Board().legal_moves:
            fail(f"analysis returned {best}")
        terminations = []
        for g in range(args.games):
            board = opening(rng, 0 if g % 2 == 0 else rng.choice([4, 6, 8]))
            ponder_side = [None, chess.WHITE, chess.BLACK][g % 3]
            start = board.fen()
            for e in engines.values():
                e.protocol.send_line("ucinewgame")  # python-chess sends it on a new game object too
            how, result = play_game(engines, board, base, inc, args.margin, args.ply_cap, ponder_side)
            terminations.append(how)
            print(f"game {g + 1}/{args.games}: {result} by {how} after {board.ply()} plies from {start}", flush=True)
        print(f"lowest clock after a move {LOWEST['clock']:.3f} s, longest move {LOWEST['think']:.3f} s")
        print(f"OK: {args.games} games, no illegal move, no time loss, no crash; endings: {', '.join(terminations)}")
    finally:
        for e in engines.values():
            try:
                e.quit()
            except Exception:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
