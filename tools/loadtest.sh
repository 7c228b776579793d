#!/usr/bin/env bash
# Load test (issue 13): ox88 with Threads 2 against ox88 with Threads 1 at 1+0.01 over many
# games, with ../shared/tools/match.py (python-chess); prints the illegal moves, time losses and
# crashes of both sides and fails if there is any.
#
#   tools/loadtest.sh                      # 1,000 games (20 took 70 s here: about 1 h 10 min)
#   GAMES=20 tools/loadtest.sh             # a short check that the set-up works
#   OPPONENT=sf1800 tools/loadtest.sh      # against an installed engine (match.py --list)
#   STATE=target/lt.json tools/loadtest.sh # resumable: rerun the same command to go on
#
# Environment: GAMES (1000), TC (1+0.01), CONCURRENCY (1: the Threads 2 side needs both cores
# while it thinks), THREADS (2), MARGIN (0.1 s a clock may go below zero, match.py's default),
# OPPONENT (cmd: the same build with Threads 1), PGN (target/loadtest.pgn), MATCH (match.py),
# STATE (a match.py state file: the run can be stopped and resumed), SEED (1; fixes the openings).
# The binary is copied first, so that a rebuild during the run does not change the engine; with
# STATE it is kept beside the state file, so that a resumed run plays the same build.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=${GAMES:-1000}
TC=${TC:-1+0.01}
CONCURRENCY=${CONCURRENCY:-1}
THREADS=${THREADS:-2}
MARGIN=${MARGIN:-0.1}
PGN=${PGN:-target/loadtest.pgn}
MATCH=${MATCH:-../shared/tools/match.py}
STATE=${STATE:-}
SEED=${SEED:-1}

if [ ! -f "$MATCH" ]; then
    echo "loadtest: $MATCH not found (set MATCH to match.py)" >&2
    exit 2
fi
python3 -c 'import chess' 2>/dev/null || {
    echo "loadtest: python-chess is missing: python3 -m pip install chess" >&2
    exit 2
}

if [ -n "$STATE" ]; then
    engine=$STATE.ox88
    if [ ! -x "$engine" ]; then
        cargo build --release --bin ox88
        cp target/release/ox88 "$engine"
    fi
    resume=(--state "$STATE")
else
    cargo build --release --bin ox88
    engine=$(mktemp -d)/ox88
    cp target/release/ox88 "$engine"
    trap 'rm -rf "$(dirname "$engine")"' EXIT
    resume=()
fi

opponent=${OPPONENT:-cmd:$engine}
echo "loadtest: $GAMES games at $TC, ox88 Threads $THREADS against $opponent, concurrency $CONCURRENCY"
log=$(mktemp)
python3 "$MATCH" --engine "$engine" --engine-option "Threads=$THREADS" \
    --opponent "$opponent" --games "$GAMES" --tc "$TC" --margin "$MARGIN" \
    --concurrency "$CONCURRENCY" --seed "$SEED" --pgn "$PGN" "${resume[@]}" | tee "$log"

result=$(grep '^RESULT ' "$log" | tail -n 1)
opponent_faults=$(grep -E '^opponent faults: ' "$log" | tail -n 1 | sed 's/.*: //')
rm -f "$log"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }
illegal=$(field illegal)
timeloss=$(field timeloss)
crash=$(field crash)
other=$(field other)
echo "loadtest: games $(field games), ox88 Threads $THREADS: illegal $illegal, time losses $timeloss," \
    "crashes $crash, other faults $other; opponent faults ${opponent_faults:-?}; PGN $PGN"
if [ -z "$result" ] || [ "$illegal$timeloss$crash$other" != "0000" ] || [ "${opponent_faults:-1}" != "0" ]; then
    echo "loadtest: FAULTS" >&2
    exit 1
fi
echo "loadtest: no faults"
