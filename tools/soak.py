#!/usr/bin/env python3
"""The soak: thousands of games of ox88 on every clock and setting, in rows of a plan.

    tools/soak.py run PLAN [RESULTS] [--rows SUBSTRING] [--dry-run]
    tools/soak.py estimate PLAN
    tools/soak.py chess960 FILE

`run` plays every row of PLAN (tools/soak_plan.txt for a release, tools/soak_smoke.txt for a
few minutes' check) and writes under RESULTS (default target/soak), one folder per row: the
PGNs, the runner's logs and `faults.txt`, the row's counts by tools/soak_check.py. A row is
played in parts of `chunk` games; a finished part is kept (`part-N.done`), an unfinished one is
played again from its start, so a run stopped anywhere goes on where it stopped when started
again. Then check the whole run with `tools/soak_check.py RESULTS`. While a file RESULTS/PAUSE
exists no new part starts (those under way finish): heavy work beside the soak would cost the
short clocks' games their time, which is the machine's fault, not the engines'.

A plan line is `ROW CLIENT ENGINE_A ENGINE_B KEY=VALUE...` (shell quoting, `#` comments):

    CLIENT     fastchess, or python (tools/soak_play.py, through python-chess)
    ENGINE_*   ox88, stockfish, ethereal-chess, toga2 or glaurung
    tc=        [MOVES/]SECONDS[+INC], as the runners take it: 40/10, 10+0.1, 5+0
    games=     games of the row; chunk= games per part (default 100); conc= games at once
    chess960   Chess960 starts (the 960 positions by the standard numbering) and castling
    ponder=    a, b or both (python rows only: fastchess does not ponder)
    clearhash= N: engine A is sent Clear Hash before every Nth of its moves (python rows,
               without ponder for A)
    a.NAME=V   a UCI option of engine A (b. for B, each. for both), as "a.Move Overhead=0"

Values may name $SYZYGY (the folder of the 3-4 piece Syzygy tables, from the environment),
$ROW (the row's results folder, for a Debug Log File) and $REPO (this repository, for a
network of nets/ as EvalFile). The engines' commands come from
OX88 (default target/release/ox88 of this repository), STOCKFISH, ETHEREAL, TOGA2 and
GLAURUNG (default the engine's name, found on PATH); FASTCHESS names fastchess (default
`fastchess` on PATH). The standard openings are made by ox88 itself (`genfens`, as in
docs/strength.md). python rows and the check need python-chess (pip install chess).
"""
import argparse
import os
import re
import shlex
import shutil
import string
import subprocess
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ENGINES = {
    "ox88": ("OX88", os.path.join(REPO, "target", "release", "ox88")),
    "stockfish": ("STOCKFISH", "stockfish"),
    "ethereal-chess": ("ETHEREAL", "ethereal-chess"),
    "toga2": ("TOGA2", "toga2"),
    "glaurung": ("GLAURUNG", "glaurung"),
}
BOOK_SIZE = 2000
# Moves per side of an average game, for the estimate (ox88's fast games run 60-70).
MOVES_PER_SIDE = 65


class PlanError(Exception):
    pass


def parse_tc(text):
    m = re.fullmatch(r"(?:(\d+)/)?(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?", text)
    if not m or float(m.group(2)) <= 0 or (m.group(1) and int(m.group(1)) < 1):
        raise PlanError(f"tc={text}: want [MOVES/]SECONDS[+INC]")
    return (int(m.group(1)) if m.group(1) else None), float(m.group(2)), float(m.group(3) or 0)


def parse_row(line, number):
    """One plan line as a dict, or None for a blank or comment line."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError as e:
        raise PlanError(f"line {number}: {e}")
    if not words:
        return None
    if len(words) < 4:
        raise PlanError(f"line {number}: want ROW CLIENT ENGINE_A ENGINE_B KEY=VALUE...")
    row = {"id": words[0], "client": words[1], "engines": words[2:4], "line": " ".join(shlex.quote(w) for w in words),
           "games": None, "tc": None, "chunk": 100, "conc": 1, "chess960": False, "ponder": "", "clearhash": 0, "options": ([], [])}
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", row["id"]):
        raise PlanError(f"line {number}: row name {row['id']!r}: letters, digits and _.+- only")
    if row["client"] not in ("fastchess", "python"):
        raise PlanError(f"line {number}: client {row['client']!r}: want fastchess or python")
    for engine in row["engines"]:
        if engine not in ENGINES:
            raise PlanError(f"line {number}: engine {engine!r}: want one of {', '.join(ENGINES)}")
    for word in words[4:]:
        key, sep, value = word.partition("=")
        if word == "chess960":
            row["chess960"] = True
        elif not sep:
            raise PlanError(f"line {number}: {word!r}: want KEY=VALUE")
        elif key in ("games", "chunk", "conc"):
            if not value.isdigit() or int(value) < 1:
                raise PlanError(f"line {number}: {key}={value}: want a positive count")
            row[key] = int(value)
        elif key == "tc":
            parse_tc(value)
            row["tc"] = value
        elif key == "ponder":
            if value not in ("a", "b", "both"):
                raise PlanError(f"line {number}: ponder={value}: want a, b or both")
            if row["client"] == "fastchess":
                raise PlanError(f"line {number}: fastchess does not ponder: make it a python row")
            row["ponder"] = value
        elif key == "clearhash":
            if not value.isdigit() or int(value) < 1:
                raise PlanError(f"line {number}: clearhash={value}: want a positive count of moves")
            if row["client"] == "fastchess":
                raise PlanError(f"line {number}: fastchess presses no button mid-game: make it a python row")
            row["clearhash"] = int(value)
        elif "." in key and key.split(".", 1)[0] in ("a", "b", "each"):
            side, option = key.split(".", 1)
            for i in ((0,) if side == "a" else (1,) if side == "b" else (0, 1)):
                row["options"][i].append((option, value))
        else:
            raise PlanError(f"line {number}: unknown key {key!r}")
    if row["games"] is None or row["tc"] is None:
        raise PlanError(f"line {number}: a row needs games= and tc=")
    if row["clearhash"] and row["ponder"] in ("a", "both"):
        raise PlanError(f"line {number}: clearhash with ponder for engine A: an option is set only while it waits")
    if row["chunk"] % 2:
        raise PlanError(f"line {number}: chunk={row['chunk']}: want an even count (games come in pairs)")
    return row


def read_plan(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            row = parse_row(line, number)
            if row:
                if any(r["id"] == row["id"] for r in rows):
                    raise PlanError(f"line {number}: row {row['id']} is there twice")
                rows.append(row)
    if not rows:
        raise PlanError(f"{path}: no row")
    return rows


def game_seconds(tc):
    moves, base, inc = parse_tc(tc)
    side = base * (MOVES_PER_SIDE / moves if moves else 1) + MOVES_PER_SIDE * inc
    return 2 * side + 0.5


def estimate(rows, cores=2):
    total_games = total_s = 0
    for row in rows:
        wall = row["games"] * game_seconds(row["tc"]) / min(row["conc"], cores)
        total_games += row["games"]
        total_s += wall
        print(f"{row['id']:28} {row['client']:9} {row['games']:6} games  {wall / 3600:6.2f} h")
    print(f"{'TOTAL':28} {'':9} {total_games:6} games  {total_s / 3600:6.2f} h on {cores} cores")
    return total_games, total_s


def chess960_fen(n):
    """The start position of Chess960 number N (0-959) by the standard (Scharnagl) numbering."""
    rank = [None] * 8
    n, b1 = divmod(n, 4)
    rank[2 * b1 + 1] = "B"
    n, b2 = divmod(n, 4)
    rank[2 * b2] = "B"
    n, q = divmod(n, 6)
    free = [i for i in range(8) if rank[i] is None]
    rank[free[q]] = "Q"
    knights = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)][n]
    free = [i for i in range(8) if rank[i] is None]
    for k in knights:
        rank[free[k]] = "N"
    for i, piece in zip([i for i in range(8) if rank[i] is None], "RKR"):
        rank[i] = piece
    white = "".join(rank)
    # One rook stands on each side of the king, so KQkq names them without doubt (X-FEN).
    return f"{white.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq -"


def write_chess960(path):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        for n in range(960):
            f.write(f"{chess960_fen(n)} hmvc 0; fmvn 1;\n")
    os.replace(path + ".tmp", path)


def write_book(ox88, path):
    """BOOK_SIZE balanced openings from ox88's genfens, as EPD (the recipe of docs/strength.md)."""
    out = subprocess.run([ox88, f"genfens {BOOK_SIZE} seed 1 book None", "quit"],
                         capture_output=True, text=True, check=False)
    lines = []
    for text in out.stdout.splitlines():
        if text.startswith("info string genfens "):
            f = text.split()[3:]
            if len(f) >= 6:
                lines.append(f"{' '.join(f[:4])} hmvc {int(f[4])}; fmvn {int(f[5])};\n")
    if len(lines) != BOOK_SIZE:
        raise PlanError(f"{ox88} made {len(lines)} openings of {BOOK_SIZE} (exit {out.returncode})")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.writelines(lines)
    os.replace(path + ".tmp", path)


def command_of(engine):
    var, default = ENGINES[engine]
    command = os.environ.get(var) or default
    if not shutil.which(command):
        raise PlanError(f"engine {engine}: {command} is not a command (set {var}, or put it on PATH)")
    return os.path.abspath(command) if os.path.exists(command) else command


def expand(value, variables):
    for name in re.findall(r"\$\{?(\w+)", value):
        if not variables.get(name):
            raise PlanError(f"{value}: the plan variable {name} is not set or empty (export it)")
    try:
        return string.Template(value).substitute(variables)
    except KeyError as e:
        raise PlanError(f"{value}: the plan variable {e} is not set (export it)")
    except ValueError:
        raise PlanError(f"{value}: a bad $ in a plan value")


def names(row):
    a, b = row["engines"]
    return (a, b + "-b") if a == b else (a, b)


def part_command(row, part, folder, books, variables, runner):
    """The runner's command line for one part of ROW, writing into FOLDER."""
    stem = os.path.join(folder, f"part-{part:03d}")
    seed = zlib.crc32(row["id"].encode()) % 100000 * 1000 + part
    book = books["chess960" if row["chess960"] else "standard"]
    options = [[(n, expand(v, variables)) for n, v in side] for side in row["options"]]
    commands = [command_of(e) for e in row["engines"]]
    games = min(row["chunk"], row["games"] - part * row["chunk"])
    if row["client"] == "fastchess":
        argv = [runner]
        for i in (0, 1):
            argv += ["-engine", f"cmd={commands[i]}", f"name={names(row)[i]}"]
            argv += [f"option.{n}={v}" for n, v in options[i]]
        argv += ["-each", "proto=uci", f"tc={row['tc']}", "timemargin=100",
                 "-openings", f"file={book}", "format=epd", "order=random", "-srand", str(seed),
                 "-rounds", str((games + 1) // 2), "-games", "2", "-repeat",
                 "-concurrency", str(row["conc"]), "-recover",
                 "-pgnout", f"file={stem}.pgn", "-log", f"file={stem}.fastchess.log", "level=warn",
                 "-config", f"outname={stem}.config.json"]
        if row["conc"] > (os.cpu_count() or 1):
            argv.append("-force-concurrency")
        if row["chess960"]:
            argv += ["-variant", "fischerandom"]
        return argv, stem
    argv = [sys.executable, os.path.join(HERE, "soak_play.py")]
    for i in (0, 1):
        spec = [f"name={names(row)[i]}", f"cmd={shlex.quote(commands[i])}"]
        spec += [f"option.{n}={v}" for n, v in options[i]]
        if row["ponder"] in ("ab"[i], "both"):
            spec.append("ponder")
        if i == 0 and row["clearhash"]:
            spec.append(f"clearhash={row['clearhash']}")
        argv += ["--engine"] + spec
    argv += ["--tc", row["tc"], "--games", str(games), "--openings", book, "--pgn", f"{stem}.pgn",
             "--seed", str(seed), "--event", row["id"]]
    if row["chess960"]:
        argv.append("--chess960")
    return argv, stem


def wait_while_paused(results, poll=5.0):
    """Before a part starts: wait while RESULTS/PAUSE exists, looking every `poll` seconds."""
    pause = os.path.join(results, "PAUSE")
    if os.path.exists(pause):
        print(f"soak: paused while {pause} exists", flush=True)
        while os.path.exists(pause):
            time.sleep(poll)
        print("soak: going on", flush=True)


def run_row(row, results, books, args):
    folder = os.path.join(results, row["id"])
    os.makedirs(folder, exist_ok=True)
    spec = os.path.join(folder, "row.txt")
    if os.path.exists(spec):
        with open(spec, encoding="utf-8") as f:
            if f.read().strip() != row["line"]:
                raise PlanError(f"row {row['id']} changed in the plan since {folder} was played: "
                                "give it a new name, or remove that folder")
    else:
        with open(spec, "w", encoding="utf-8") as f:
            f.write(row["line"] + "\n")
    variables = dict(os.environ, ROW=os.path.abspath(folder), REPO=REPO)
    runner = os.environ.get("FASTCHESS") or "fastchess"
    if row["client"] == "fastchess" and not shutil.which(runner):
        raise PlanError(f"fastchess: {runner} is not a command: build it "
                        "(https://github.com/Disservin/fastchess) and set FASTCHESS")
    parts = range((row["games"] + row["chunk"] - 1) // row["chunk"])
    todo = [p for p in parts if not os.path.exists(os.path.join(folder, f"part-{p:03d}.done"))]
    # python parts are one game at a time each, so conc of them run side by side.
    width = row["conc"] if row["client"] == "python" else 1
    running = []
    failed = []
    while todo or running:
        while todo and len(running) < width:
            if not args.dry_run:
                wait_while_paused(results)
            part = todo.pop(0)
            argv, stem = part_command(row, part, folder, books, variables, runner)
            for suffix in (".pgn", ".log", ".fastchess.log", ".config.json"):
                if os.path.exists(stem + suffix):
                    os.remove(stem + suffix)
            print(f"{row['id']} part {part}: {shlex.join(argv)}", flush=True)
            if args.dry_run:
                continue
            log = open(stem + ".log", "w", encoding="utf-8")
            running.append((subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=folder), stem, log))
        if not running:
            break
        proc, stem, log = running.pop(0)
        code = proc.wait()
        log.close()
        if code == 0:
            open(stem + ".done", "w").close()
        else:
            failed.append(f"{stem}: the runner exited {code} (see {stem}.log)")
    if args.dry_run:
        return True
    sys.path.insert(0, HERE)
    import soak_check  # noqa: E402  (python-chess is needed for the check only)

    # The rows that give a side tables are also checked for tablebase wins given away.
    tables = os.environ.get("SYZYGY") if any(n == "SyzygyPath" for side in row["options"] for n, _ in side) else None
    counts = soak_check.check_folder(results, "ox88", tables if tables and os.path.isdir(tables) else None).get(row["id"])
    if counts:
        with open(os.path.join(folder, "faults.txt"), "w", encoding="utf-8") as f:
            f.write(soak_check.line(row["id"], counts) + "\n")
        print(soak_check.line(row["id"], counts), flush=True)
    for why in failed:
        print(f"soak: {why}", file=sys.stderr)
    return not failed


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.strip().splitlines()[1:]))
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("plan")
    r.add_argument("results", nargs="?", default=os.path.join(REPO, "target", "soak"))
    r.add_argument("--rows", default="", help="only the rows whose name holds this")
    r.add_argument("--dry-run", action="store_true", help="print the commands, play nothing")
    e = sub.add_parser("estimate")
    e.add_argument("plan")
    c = sub.add_parser("chess960")
    c.add_argument("file")
    args = parser.parse_args(argv)
    try:
        if args.what == "chess960":
            write_chess960(args.file)
            return 0
        rows = read_plan(args.plan)
        if args.what == "estimate":
            estimate(rows)
            return 0
        rows = [row for row in rows if args.rows in row["id"]]
        args.results = os.path.abspath(args.results)
        books = {"standard": os.path.join(args.results, "openings", "standard.epd"),
                 "chess960": os.path.join(args.results, "openings", "chess960.epd")}
        os.makedirs(os.path.dirname(books["standard"]), exist_ok=True)
        if not os.path.exists(books["chess960"]):
            write_chess960(books["chess960"])
        if not os.path.exists(books["standard"]):
            write_book(command_of("ox88"), books["standard"])
        ok = True
        for row in rows:
            ok = run_row(row, args.results, books, args) and ok
        if args.dry_run:
            print("soak: a dry run: nothing played")
            return 0
        print(f"soak: rows {'played' if ok else 'played, some parts failed'}; "
              f"check them: {sys.executable} {os.path.join(HERE, 'soak_check.py')} {args.results}")
        return 0 if ok else 1
    except (PlanError, OSError) as e:
        print(f"soak: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
