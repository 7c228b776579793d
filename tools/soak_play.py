#!/usr/bin/env python3
"""Games between two UCI engines through python-chess, as GUIs and lichess-bot drive engines.

    tools/soak_play.py --engine name=ox88 cmd=target/release/ox88 option.Hash=16 ponder clearhash=10 \\
        --engine name=stockfish cmd=stockfish --tc 40/2 --games 10 --openings book.epd \\
        --pgn games.pgn [--chess960] [--seed 1] [--margin-ms 100] [--stall-s 10] [--ply-cap 600]

Each opening of the EPD file (in an order fixed by --seed) is played twice, colours swapped.
Engines stay up from game to game (a `ucinewgame` between), and one that crashed or stalled is
started again for the next game. The clock is kept here: `--tc` is `[MOVES/]SECONDS[+INC]`,
MOVES repeating (`go movestogo`). An engine with `ponder` keeps thinking on the opponent's
time: python-chess sends `go ponder` after each bestmove, `ponderhit` when the opponent played
the predicted move and `stop` and a new `go` when not; the hits (ponderhits sent) and misses
are counted in the PGN tags WhitePonderHits, WhitePonderMisses and the Black ones. An engine
with `clearhash=N` is sent `setoption name Clear Hash` before every Nth of its moves after its
first, mid-game as a GUI's button does (counted in WhiteHashClears and BlackHashClears; not
with `ponder`, since an option is set only while the engine waits).

A game ends by the rules (checkmate, stalemate, threefold repetition, fifty moves,
insufficient material), at --ply-cap plies (a draw, Termination "adjudication"), or by a fault
of the side to move, with its Termination tag:

    time forfeit        the move came later than the clock plus --margin-ms. The clock is
                        measured here, from asking for the move (`go`, `ponderhit`, or after a
                        ponder miss `stop` and a new `go`, as a GUI's clock runs from the
                        opponent's move) to `bestmove` read, so it includes the pipe and the
                        scheduling of a loaded machine that the engine cannot see; 100 ms is
                        the margin the fastchess rows use (as tools/match.sh), so that both
                        clients judge alike
    illegal move        a bestmove that is not a legal move, or none (`0000`) where one exists
    abandoned           the engine exited or closed its pipes
    stalled connection  no bestmove --stall-s seconds after the clock ran out

Lines python-chess cannot parse (it logs them rather than raising) are counted per side in the
tags WhiteGarbled and BlackGarbled, the first of them in WhiteGarbledLine. `MultiPV`, `Ponder`
and `UCI_Chess960` are python-chess's to set (it resets MultiPV before every move), so they are
refused as options here; use `ponder`, --chess960, and the fastchess rows for MultiPV.

Exit code 0 when every game was played (faults or not: tools/soak_check.py judges them), 2 on
bad arguments or an engine that does not start. Needs python-chess: pip install chess.
"""
import argparse
import asyncio
import logging
import random
import shlex
import sys
import time

try:
    import chess
    import chess.engine
    import chess.pgn
except ImportError:
    sys.exit("soak_play: needs python-chess: pip install chess (in a venv: python3 -m venv DIR)")

MANAGED = {"multipv", "ponder", "uci_chess960", "uci_variant"}


class Usage(Exception):
    pass


def parse_tc(text):
    """(moves or None, base seconds, increment seconds) from `[MOVES/]SECONDS[+INC]`."""
    try:
        moves = None
        if "/" in text:
            m, text = text.split("/", 1)
            moves = int(m)
            if moves < 1:
                raise ValueError
        base, _, inc = text.partition("+")
        base, inc = float(base), float(inc or 0)
        if base <= 0 or inc < 0:
            raise ValueError
        return moves, base, inc
    except ValueError:
        raise Usage(f"bad time control {text!r}: want [MOVES/]SECONDS[+INC], as 40/10, 10+0.1 or 5+0")


def parse_engine(tokens):
    """{name, cmd, options, ponder, clearhash} from `name=N cmd=C option.X=Y ponder clearhash=N`."""
    spec = {"name": None, "cmd": None, "options": {}, "ponder": False, "clearhash": 0}
    for token in tokens:
        if token == "ponder":
            spec["ponder"] = True
            continue
        key, sep, value = token.partition("=")
        if not sep:
            raise Usage(f"engine setting {token!r}: want key=value or ponder")
        if key in ("name", "cmd"):
            spec[key] = value
        elif key == "clearhash":
            if not value.isdigit() or int(value) < 1:
                raise Usage(f"clearhash={value}: want a positive count of moves")
            spec["clearhash"] = int(value)
        elif key.startswith("option."):
            option = key[len("option."):]
            if option.lower() in MANAGED:
                raise Usage(f"option {option} is python-chess's to set; see --help")
            spec["options"][option] = value
        else:
            raise Usage(f"engine setting {key!r}: want name, cmd, option.NAME, ponder or clearhash")
    if spec["clearhash"] and spec["ponder"]:
        raise Usage("clearhash and ponder together: an option is set only while the engine waits")
    if not spec["cmd"]:
        raise Usage("an --engine needs cmd=COMMAND")
    spec["name"] = spec["name"] or spec["cmd"]
    return spec


def read_openings(path, chess960):
    boards = []
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if not text.strip() or text.startswith("#"):
                continue
            try:
                board, _ = chess.Board.from_epd(text.strip(), chess960=chess960)
            except ValueError as e:
                raise Usage(f"{path}:{number}: not an EPD position: {e}")
            if board.is_game_over():
                raise Usage(f"{path}:{number}: the game is over in this position")
            boards.append(board)
    if not boards:
        raise Usage(f"{path}: no opening")
    return boards


class Tally(logging.Handler):
    """Counts, per engine, the ponderhits python-chess sends and the lines it cannot parse."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.hits, self.garbled, self.first = {}, {}, {}
        # python-chess names the engine in most records, not in those of its info parser: these
        # come from the engine asked to move (a pondering engine's info lines are not parsed).
        self.known, self.current = set(), None

    def emit(self, record):
        args = record.args if isinstance(record.args, tuple) else ()
        who = id(args[0]) if args and id(args[0]) in self.known else self.current
        if record.levelno == logging.DEBUG:
            if len(args) > 1 and record.msg.endswith("<< %s") and args[1] == "ponderhit":
                self.hits[who] = self.hits.get(who, 0) + 1
        elif record.levelno >= logging.WARNING:
            self.garbled[who] = self.garbled.get(who, 0) + 1
            self.first.setdefault(who, record.getMessage()[:200])


class Player:
    def __init__(self, spec):
        self.spec, self.engine, self.transport = spec, None, None

    async def start(self):
        self.transport, self.engine = await chess.engine.popen_uci(shlex.split(self.spec["cmd"]))
        # python-chess keeps a configured value as given and, before each move, compares it with
        # the value it parsed when it set the option: a spin given as the string "2" then reads as
        # changed, and every ponderhit turns into `stop` and a new `go`. So each value is parsed
        # by the engine's own option first, as a GUI holds it (an unknown name is left for
        # configure to refuse).
        options = {name: self.engine.options[name].parse(value) if name in self.engine.options else value
                   for name, value in self.spec["options"].items()}
        await self.engine.configure(options)

    async def ensure(self):
        if self.engine is None or self.engine.returncode.done():
            await self.start()

    async def drop(self):
        """Ends an engine in an unknown state, so that the next game starts a fresh one."""
        if self.engine is not None:
            try:
                await asyncio.wait_for(self.engine.quit(), 2)
            except Exception:
                self.transport.kill()
        self.engine = None


async def play_game(players, white, board, clock, args, tally, game_id):
    """Plays one game from BOARD; returns (result, termination, detail, per-colour counts, a
    note per move)."""
    moves_per, base, inc = clock
    left = {chess.WHITE: base, chess.BLACK: base}
    made = {chess.WHITE: 0, chess.BLACK: 0}
    side_player = {chess.WHITE: players[white], chess.BLACK: players[1 - white]}
    predicted = {chess.WHITE: None, chess.BLACK: None}
    misses = {chess.WHITE: 0, chess.BLACK: 0}
    clears = {chess.WHITE: 0, chess.BLACK: 0}
    # The engines of this game, kept by id: one that fails is dropped before the counts are read.
    ids = {c: id(p.engine) for c, p in side_player.items()}
    hits0 = {c: tally.hits.get(ids[c], 0) for c in ids}
    garbled0 = {c: tally.garbled.get(ids[c], 0) for c in ids}

    def counts():
        out = {}
        for c in ids:
            out[c] = {
                "hits": tally.hits.get(ids[c], 0) - hits0[c],
                "misses": misses[c],
                "clears": clears[c],
                "garbled": tally.garbled.get(ids[c], 0) - garbled0[c],
                "first": tally.first.get(ids[c]),
            }
        return out

    notes = []

    def lost(side, termination, detail):
        return ("0-1" if side == chess.WHITE else "1-0"), termination, detail

    while True:
        # The draws a runner declares, no more: python-chess's claim_draw would also end a game
        # one move before its threefold repetition or its fiftieth move.
        outcome = board.outcome()
        if outcome is None and board.is_repetition(3):
            outcome = chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
        if outcome is None and board.halfmove_clock >= 100:
            outcome = chess.Outcome(chess.Termination.FIFTY_MOVES, None)
        if outcome is not None:
            return (outcome.result(), "normal", outcome.termination.name.lower(), counts(), notes)
        if board.ply() >= args.ply_cap:
            return ("1/2-1/2", "adjudication", f"ply cap {args.ply_cap}", counts(), notes)
        side = board.turn
        player = side_player[side]
        togo = moves_per - made[side] % moves_per if moves_per else None
        limit = chess.engine.Limit(
            white_clock=max(left[chess.WHITE], 0), black_clock=max(left[chess.BLACK], 0),
            white_inc=inc, black_inc=inc, remaining_moves=togo)
        where = f"at ply {board.ply()} ({board.fen()})"
        tally.current = id(player.engine)
        every = player.spec["clearhash"]
        if every and made[side] and made[side] % every == 0:
            # Between moves, off the clock: a GUI's button is pressed while the engine waits.
            try:
                await asyncio.wait_for(player.engine.configure({"Clear Hash": None}), args.stall_s)
                await asyncio.wait_for(player.engine.ping(), args.stall_s)
            except asyncio.TimeoutError:
                await player.drop()
                return (*lost(side, "stalled connection", f"no readyok after Clear Hash {where}"), counts(), notes)
            except chess.engine.EngineTerminatedError as e:
                await player.drop()
                return (*lost(side, "abandoned", f"engine exited after Clear Hash {where}: {e}"), counts(), notes)
            except chess.engine.EngineError as e:
                raise Usage(f"engine {player.spec['name']}: {e}")
            clears[side] += 1
        start = time.monotonic()
        try:
            result = await asyncio.wait_for(
                player.engine.play(board, limit, ponder=player.spec["ponder"], game=game_id,
                                   info=chess.engine.INFO_BASIC),
                left[side] + args.margin_ms / 1000 + args.stall_s)
        except asyncio.TimeoutError:
            await player.drop()
            return (*lost(side, "stalled connection", f"no bestmove {where}"), counts(), notes)
        except chess.engine.EngineTerminatedError as e:
            await player.drop()
            return (*lost(side, "abandoned", f"engine exited {where}: {e}"), counts(), notes)
        except chess.engine.EngineError as e:
            await player.drop()
            return (*lost(side, "illegal move", f"{e} {where}"), counts(), notes)
        used = time.monotonic() - start
        left[side] -= used
        if result.move is None or not board.is_legal(result.move):
            return (*lost(side, "illegal move", f"bestmove {result.move} {where}"), counts(), notes)
        board.push(result.move)
        # The engine's own last `info time` and nodes beside the time measured here tell a long
        # search from a slow pipe or a starved process when a move comes late.
        said, nodes = result.info.get("time"), result.info.get("nodes")
        notes.append(f"{used:.3f}s left {left[side]:.3f}s" + (f" engine {said:.3f}s" if said is not None else "")
                     + (f" nodes {nodes}" if nodes is not None else ""))
        if predicted[not side] is not None:
            if result.move != predicted[not side]:
                misses[not side] += 1
            predicted[not side] = None
        if left[side] < -args.margin_ms / 1000:
            return (*lost(side, "time forfeit", f"{-left[side] * 1000:.0f} ms over {where}"), counts(), notes)
        if player.spec["ponder"] and result.ponder is not None:
            predicted[side] = result.ponder
        made[side] += 1
        left[side] += inc
        if moves_per and made[side] % moves_per == 0:
            left[side] += base


def write_game(pgn, board, tags, notes):
    game = chess.pgn.Game()
    start = board.root()
    game.setup(start)
    node = game
    for move, note in zip(board.move_stack, notes):
        node = node.add_variation(move, comment=note)
    for key, value in tags.items():
        game.headers[key] = value
    if board.chess960:
        game.headers["Variant"] = "Chess960"
    print(game, file=pgn, end="\n\n", flush=True)


async def run(args):
    specs = [parse_engine(tokens) for tokens in args.engine]
    if len(specs) != 2:
        raise Usage("give two --engine")
    clock = parse_tc(args.tc)
    openings = read_openings(args.openings, args.chess960)
    random.Random(args.seed).shuffle(openings)
    tally = Tally()
    logger = logging.getLogger("chess.engine")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(tally)
    logger.propagate = False
    players = [Player(s) for s in specs]
    try:
        for p in players:
            try:
                await p.start()
            except (OSError, chess.engine.EngineError) as e:
                raise Usage(f"engine {p.spec['name']} ({p.spec['cmd']}) does not start: {e}")
        with open(args.pgn, "a", encoding="utf-8") as pgn:
            for number in range(args.games):
                opening = openings[(number // 2) % len(openings)]
                white = number % 2
                for p in players:
                    await p.ensure()
                    tally.known.add(id(p.engine))
                board = opening.copy(stack=False)
                started = time.strftime("%Y.%m.%d")
                game_id = object()
                result, termination, detail, counts, notes = await play_game(
                    players, white, board, clock, args, tally, game_id)
                tags = {
                    "Event": args.event, "Site": "soak_play.py", "Date": started,
                    "Round": str(number + 1), "White": specs[white]["name"],
                    "Black": specs[1 - white]["name"], "Result": result,
                    "TimeControl": args.tc, "Termination": termination, "SoakDetail": detail,
                }
                for colour, prefix in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
                    c = counts[colour]
                    tags[prefix + "PonderHits"] = str(c["hits"])
                    tags[prefix + "PonderMisses"] = str(c["misses"])
                    if specs[white if colour == chess.WHITE else 1 - white]["clearhash"]:
                        tags[prefix + "HashClears"] = str(c["clears"])
                    tags[prefix + "Garbled"] = str(c["garbled"])
                    if c["garbled"] and c["first"]:
                        tags[prefix + "GarbledLine"] = c["first"]
                write_game(pgn, board, tags, notes)
                print(f"game {number + 1}/{args.games}: {tags['White']} - {tags['Black']} {result} "
                      f"{termination} ({detail})", flush=True)
    finally:
        for p in players:
            await p.drop()


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.strip().splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.strip().splitlines()[1:]))
    parser.add_argument("--engine", nargs="+", action="append", required=True, metavar="SETTING")
    parser.add_argument("--tc", required=True)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--openings", required=True, help="an EPD file of start positions")
    parser.add_argument("--pgn", required=True, help="the PGN file the games are appended to")
    parser.add_argument("--chess960", action="store_true", help="Chess960 openings and castling")
    parser.add_argument("--seed", type=int, default=1, help="the order of the openings")
    parser.add_argument("--margin-ms", type=float, default=100)
    parser.add_argument("--stall-s", type=float, default=10)
    parser.add_argument("--ply-cap", type=int, default=600)
    parser.add_argument("--event", default="soak")
    args = parser.parse_args(argv)
    try:
        if args.games < 1 or args.ply_cap < 1 or args.margin_ms < 0 or args.stall_s <= 0:
            raise Usage("--games and --ply-cap want a positive count, --margin-ms and --stall-s a time")
        asyncio.run(run(args))
    except (Usage, OSError) as e:
        print(f"soak_play: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
