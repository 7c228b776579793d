#!/usr/bin/env python3
"""Checks every game of a soak run, as python-chess reads it.

    tools/soak_check.py RESULTS [--engine ox88] [--tables DIR] [--json FILE] [--markdown FILE]

RESULTS is the folder `tools/soak.py run` wrote: one folder per plan row, each holding the
PGNs of its parts. Every game is replayed from its start (the FEN tag, Chess960 when the
Variant tag says so): every move must be legal, and the result must follow from the final
position (checkmate, stalemate, threefold repetition, fifty moves, insufficient material)
or from the Termination tag (an adjudication, a time forfeit, an illegal move, a crash).

A fault is charged to one side, the one that lost the game by it; when the result is a draw
(a flag against a bare king), the side that moved last for a time forfeit, the side to move
for any other fault:

    timeloss  Termination "time forfeit": the side ran past its clock and the runner's margin
    illegal   "illegal move" or "rules infraction": the side sent a move the rules forbid
    crash     "abandoned" or "disconnect": the engine exited or closed its pipes
    stall     "stalled connection": no bestmove long after the clock ran out
    garbled   lines the client could not parse (the python-chess client's tags)
    other     any other Termination, or an unfinished game ("*")
    tbwin     with --tables (the Syzygy folder the rows' `$SYZYGY` named): a side the row gave
              `SyzygyPath` was to move in a sure tablebase win (its DTZ plus the fifty-move
              count under 100 plies, by python-chess's prober) and did not win the game

and a game is `inconsistent` (charged to the run, not to a side) when a move in it is
illegal, or its result does not follow from its final position or its Termination.

`--markdown` writes the soak table: a line per row with its client, engines, clock and
options (from the row's `row.txt`, which `tools/soak.py` writes), its games and each side's
faults by kind, then the totals.

Prints one line per row, then the totals; exits 1 when ENGINE (a side named ENGINE or
ENGINE-something) has a fault or any game is inconsistent, 2 on bad arguments. Needs
python-chess (`pip install chess`).
"""
import argparse
import json
import logging
import os
import shlex
import sys

try:
    import chess
    import chess.pgn
except ImportError:
    sys.exit("soak_check: needs python-chess: pip install chess (in a venv: python3 -m venv DIR)")

KINDS = ("timeloss", "illegal", "crash", "stall", "garbled", "other", "tbwin")
TERMINATIONS = {
    "time forfeit": "timeloss",
    "illegal move": "illegal",
    "rules infraction": "illegal",
    "abandoned": "crash",
    "disconnect": "crash",
    "stalled connection": "stall",
}
# A move the movetext cannot make is in game.errors, and counted; python-chess's own report of
# it on stderr would only repeat it.
logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)


def final_board(game):
    """The game's final position, or the reason a move in it is not legal."""
    if game.errors:
        return None, f"unreadable movetext: {game.errors[0]}"
    try:
        board = game.board()
    except ValueError as e:
        return None, f"bad start position: {e}"
    for move in game.mainline_moves():
        if not board.is_legal(move):
            return None, f"illegal move {move.uci()} in {board.fen()}"
        board.push(move)
    return board, None


def rules_result(board):
    """The result the rules give the final position, or None when the game could go on."""
    if board.is_checkmate():
        return "0-1" if board.turn == chess.WHITE else "1-0"
    if (
        board.is_stalemate()
        or board.is_insufficient_material()
        or board.is_repetition(3)
        or board.halfmove_clock >= 100
    ):
        return "1/2-1/2"
    return None


def judge(game):
    """(side charged or None, fault kind or None, inconsistency or None) for one game."""
    headers = game.headers
    result = headers.get("Result", "*")
    termination = headers.get("Termination", "normal").strip().lower()
    board, why = final_board(game)
    if board is None:
        return None, None, why
    if result == "*":
        return board.turn, "other", None
    if result not in ("1-0", "0-1", "1/2-1/2"):
        return None, None, f"result tag {result!r}"
    expected = rules_result(board)
    if termination == "normal":
        if expected != result:
            return None, None, f"result {result} but the final position gives {expected or 'no result'}"
        return None, None, None
    if termination == "adjudication":
        if expected is not None and expected != result:
            return None, None, f"adjudicated {result} but the final position gives {expected}"
        return None, None, None
    kind = TERMINATIONS.get(termination, "other")
    # The move that came too late is in the game (the runners write it), so a flag may follow
    # a mate; any other fault ends a game that was not over.
    if expected is not None and kind != "timeloss":
        return None, None, f"{termination} after the game was over ({expected})"
    if result == "1-0":
        side = chess.BLACK
    elif result == "0-1":
        side = chess.WHITE
    else:
        side = not board.turn if kind == "timeloss" else board.turn
    return side, kind, None


def sure_wins(game, tables):
    """The sides that were to move, somewhere in the game, in a win the tables guarantee under
    the fifty-move rule."""
    winners = set()
    board = game.board()
    for move in game.mainline_moves():
        if chess.popcount(board.occupied) <= 7 and not board.castling_rights:
            try:
                dtz = tables.probe_dtz(board)
            except KeyError:  # not in the tables (a missing table included)
                dtz = 0
            # 99, not 100: a DTZ may be one ply longer than the fastest route.
            if dtz > 0 and dtz + board.halfmove_clock <= 99:
                winners.add(board.turn)
        if not board.is_legal(move):
            break
        board.push(move)
    return winners


def row_words(folder, row):
    """The words of a row's `row.txt` (the plan's line, quoted as the plan quotes it), or []."""
    try:
        with open(os.path.join(folder, row, "row.txt"), encoding="utf-8") as f:
            return shlex.split(f.read())
    except (OSError, ValueError):
        return []


def names_with_tables(folder, row):
    """The names (as the PGNs give them) of the row's sides that had `SyzygyPath` set."""
    words = row_words(folder, row)
    if len(words) < 4:
        return set()
    a, b = words[2], words[3]
    names = {"a": a, "b": b if b != a else b + "-b"}
    out = set()
    for w in words[4:]:
        side, _, setting = w.partition(".")
        key, _, value = setting.partition("=")
        if key == "SyzygyPath" and value.strip() not in ("", "<empty>"):
            out |= set(names.values()) if side == "each" else {names[side]} if side in names else set()
    return out


def is_engine(name, engine):
    return name == engine or name.startswith(engine + "-")


def empty():
    return {k: 0 for k in KINDS}


def check_text(handle, engine, tables=None, with_tables=()):
    """Counts for the games read from HANDLE: games, engine and opponent faults, inconsistencies.
    With `tables` (python-chess's Tablebase), a sure win given away by a side named in
    `with_tables` is a `tbwin` fault."""
    counts = {
        "games": 0,
        "engine": empty(),
        "opponent": empty(),
        "inconsistent": [],
        "ponderhit": 0,
        "pondermiss": 0,
        "hashclears": 0,
    }
    while True:
        try:
            game = chess.pgn.read_game(handle)
        except (ValueError, UnicodeDecodeError) as e:
            counts["inconsistent"].append(f"unreadable game: {e}")
            break
        if game is None:
            break
        counts["games"] += 1
        side, kind, why = judge(game)
        number = counts["games"]
        if why:
            counts["inconsistent"].append(f"game {number}: {why}")
        names = {chess.WHITE: game.headers.get("White", "?"), chess.BLACK: game.headers.get("Black", "?")}
        if side is not None:
            who = "engine" if is_engine(names[side], engine) else "opponent"
            counts[who][kind] += 1
        # A game a fault already ended (a flag, a crash) is charged to that fault alone.
        if tables is not None and not why and side is None and any(n in with_tables for n in names.values()):
            result = game.headers.get("Result", "*")
            for colour in sure_wins(game, tables):
                if names[colour] in with_tables and result != ("1-0" if colour == chess.WHITE else "0-1"):
                    counts["engine" if is_engine(names[colour], engine) else "opponent"]["tbwin"] += 1
        for colour, prefix in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
            garbled = int(game.headers.get(prefix + "Garbled", "0") or 0)
            if garbled:
                who = "engine" if is_engine(names[colour], engine) else "opponent"
                counts[who]["garbled"] += garbled
            if is_engine(names[colour], engine):
                counts["ponderhit"] += int(game.headers.get(prefix + "PonderHits", "0") or 0)
                counts["pondermiss"] += int(game.headers.get(prefix + "PonderMisses", "0") or 0)
                counts["hashclears"] += int(game.headers.get(prefix + "HashClears", "0") or 0)
    return counts


def add(total, part):
    total["games"] += part["games"]
    for who in ("engine", "opponent"):
        for k in KINDS:
            total[who][k] += part[who][k]
    total["inconsistent"] += part["inconsistent"]
    total["ponderhit"] += part["ponderhit"]
    total["pondermiss"] += part["pondermiss"]
    total["hashclears"] += part["hashclears"]


def check_folder(folder, engine, tables=None):
    """Counts per row folder of RESULTS (sorted), each summing its PGN files. `tables`: the
    Syzygy folder, for the `tbwin` check of the rows that set `SyzygyPath`."""
    probe = None
    if tables:
        import chess.syzygy

        probe = chess.syzygy.open_tablebase(tables)
    rows = {}
    for row in sorted(os.listdir(folder)):
        path = os.path.join(folder, row)
        if not os.path.isdir(path):
            continue
        pgns = sorted(f for f in os.listdir(path) if f.endswith(".pgn"))
        if not pgns:
            continue
        with open(os.devnull, encoding="utf-8") as empty:
            total = check_text(empty, engine)
        for name in pgns:
            with open(os.path.join(path, name), encoding="utf-8", errors="replace") as handle:
                add(total, check_text(handle, engine, probe, names_with_tables(folder, row)))
        rows[row] = total
    return rows


def line(name, c):
    faults = lambda who: " ".join(f"{k}={v}" for k, v in c[who].items())
    ponder = f" ponderhit={c['ponderhit']} pondermiss={c['pondermiss']}" if c["ponderhit"] + c["pondermiss"] else ""
    clears = f" hashclears={c['hashclears']}" if c["hashclears"] else ""
    return (
        f"{name}: games={c['games']} inconsistent={len(c['inconsistent'])}{ponder}{clears}\n"
        f"    engine: {faults('engine')}\n    opponent: {faults('opponent')}"
    )


def faults_text(c):
    """'0', or the kinds that occurred with their counts, as 'timeloss 1, crash 2'."""
    found = [f"{k} {v}" for k, v in c.items() if v]
    return ", ".join(found) if found else "0"


def ponder_text(c):
    """'hits / misses' of the engine's pondering, or '–' for a row without it."""
    return f"{c['ponderhit']} / {c['pondermiss']}" if c["ponderhit"] + c["pondermiss"] else "–"


def row_spec(folder, row):
    """(client, engines, clock, options) of a row, from its row.txt (the plan's line, quoted as the
    plan quotes it); '?' where it is missing."""
    words = row_words(folder, row)
    if len(words) < 4:
        return "?", "?", "?", "?"
    client, a, b = words[1:4]
    rest = words[4:]
    clock = next((w[3:] for w in rest if w.startswith("tc=")), "?")
    options = [w for w in rest if not w.startswith(("tc=", "games=", "conc=", "chunk="))]
    return client, f"{a} – {b}", clock, ", ".join(options) or "–"


def markdown(rows, total, folder, engine):
    """The soak table in Markdown, one line per row and a line of totals."""
    out = [
        f"| row | client | engines | clock | options | games | {engine} faults | opponent faults | ponder hit / miss |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, c in rows.items():
        client, engines, clock, options = row_spec(folder, name)
        options = options.replace("|", "\\|")
        out.append(f"| {name} | {client} | {engines} | {clock} | {options} | {c['games']} | "
                   f"{faults_text(c['engine'])} | {faults_text(c['opponent'])} | {ponder_text(c)} |")
    out.append(f"| **total** | | | | | **{total['games']}** | **{faults_text(total['engine'])}** | "
               f"{faults_text(total['opponent'])} | {ponder_text(total)} |")
    return "\n".join(out) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("results", help="the folder tools/soak.py wrote")
    parser.add_argument("--engine", default="ox88", help="the engine whose faults fail the check (default ox88)")
    parser.add_argument("--tables", help="the Syzygy folder: count the sure wins given away by a side with tables")
    parser.add_argument("--json", help="also write the counts as JSON to this file")
    parser.add_argument("--markdown", help="also write the soak table in Markdown to this file")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.results):
        print(f"soak_check: {args.results} is not a folder", file=sys.stderr)
        return 2
    if args.tables and not os.path.isdir(args.tables):
        print(f"soak_check: {args.tables} is not a folder", file=sys.stderr)
        return 2
    rows = check_folder(args.results, args.engine, args.tables)
    total = check_text(open(os.devnull, encoding="utf-8"), args.engine)
    for name, counts in rows.items():
        print(line(name, counts))
        for why in counts["inconsistent"][:10]:
            print(f"    inconsistent: {why}")
        add(total, counts)
    print(line("TOTAL", total))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"rows": rows, "total": total}, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(markdown(rows, total, args.results, args.engine))
    if total["games"] == 0:
        print(f"soak_check: no game in {args.results}", file=sys.stderr)
        return 1
    bad = sum(total["engine"].values()) + len(total["inconsistent"])
    print("soak_check: " + ("FAIL" if bad else "ok") + f" ({args.engine} faults {sum(total['engine'].values())})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
