#!/usr/bin/env python3
"""A UCI engine with its own node count: runs COMMAND, passes every line through, but answers
`go nodes N` with `go nodes M`.

    tools/uci_nodes.py M COMMAND [ARGS...]

For fixed-node calibration games where the runner gives both sides one count: ox88 with
UCI_LimitStrength gets a count above its own budget, so that its budget decides, while Stockfish
with UCI_LimitStrength gets M, enough to reach the depth at which its handicap picks the move
(1 + its skill level), after which more nodes do not change the move it plays. With
fastchess (cutechess-cli takes the same options, with `-pgnout FILE`):

    fastchess -engine cmd=target/release/ox88 name=ox88 \
            option.UCI_LimitStrength=true option.UCI_Elo=1600 \
        -engine cmd=tools/uci_nodes.py args="20000 stockfish" name=sf1600 \
            option.UCI_LimitStrength=true option.UCI_Elo=1600 \
        -each proto=uci tc=inf nodes=2000000 -openings file=book.epd format=epd order=random \
        -rounds 50 -repeat -pgnout file=games.pgn

where book.epd comes from `ox88 "genfens 50 seed 1 book None" quit` (see docs/uci.md).
"""
import re
import subprocess
import sys


def main() -> int:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        print(__doc__.strip(), file=sys.stderr)
        return 2
    nodes, command = sys.argv[1], sys.argv[2:]
    # The engine writes straight to our stdout; only its input is rewritten.
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, text=True, bufsize=1)
    go_nodes = re.compile(r"^(\s*go\b.*\bnodes\s+)\d+")
    try:
        for line in sys.stdin:
            engine.stdin.write(go_nodes.sub(lambda m: m.group(1) + nodes, line))
            engine.stdin.flush()
            if line.strip() == "quit":
                break
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    try:
        engine.stdin.close()
    except BrokenPipeError:
        pass
    return engine.wait()


if __name__ == "__main__":
    sys.exit(main())
