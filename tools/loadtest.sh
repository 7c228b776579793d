#!/usr/bin/env bash
# Load test: ox88 with Threads 2 against ox88 with Threads 1 at 1+0.01 over many games, with
# fastchess or cutechess-cli; prints the illegal moves, time losses and crashes of both sides
# and fails if there is any.
#
#   tools/loadtest.sh                          # 1,000 games
#   GAMES=20 tools/loadtest.sh                 # a short check that the set-up works
#   OPPONENT=/usr/games/stockfish tools/loadtest.sh   # against another UCI engine
#   RUNNER=cutechess-cli tools/loadtest.sh     # the runner (default: fastchess, else cutechess-cli)
#
# Environment: GAMES (1000), TC (1+0.01), CONCURRENCY (1: the Threads 2 side needs two cores
# while it thinks), THREADS (2), MARGIN_MS (100: how far a clock may go below zero), OPPONENT
# (a command; default: the same build with Threads 1), PGN (target/loadtest.pgn), BOOK (an EPD
# file of openings; default: GAMES/2 made by `ox88 genfens` from SEED), SEED (1), RUNNER.
# The binary is copied first, so that a rebuild during the run does not change the engine.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/match.sh

GAMES=${GAMES:-1000}
TC=${TC:-1+0.01}
CONCURRENCY=${CONCURRENCY:-1}
THREADS=${THREADS:-2}
PGN=${PGN:-target/loadtest.pgn}
SEED=${SEED:-1}
find_runner
python3 -c '' 2>/dev/null || { echo "loadtest: python3 is needed to read the PGN" >&2; exit 2; }

cargo build --release --bin ox88
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
engine=$dir/ox88
cp target/release/ox88 "$engine"
book=${BOOK:-}
if [ -z "$book" ]; then
    book=$dir/openings.epd
    make_book "$engine" $(((GAMES + 1) / 2)) "$SEED" "$book"
fi

opponent=${OPPONENT:-$engine}
echo "loadtest: $GAMES games at $TC, ox88 Threads $THREADS against $opponent, concurrency $CONCURRENCY, $RUNNER"
mkdir -p "$(dirname "$PGN")"
run_match "$GAMES" "$TC" "$CONCURRENCY" "$SEED" "$book" "$PGN" \
    -- "cmd=$engine" name=ox88 "option.Threads=$THREADS" \
    -- "cmd=$opponent" name=opponent

summary=$(python3 tools/pgn_result.py ox88 "$PGN") || { echo "loadtest: no result in $PGN" >&2; exit 1; }
echo "$summary"
result=$(grep '^RESULT ' <<<"$summary")
opponent_faults=$(sed -n 's/^opponent faults: //p' <<<"$summary")
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }
illegal=$(field illegal)
timeloss=$(field timeloss)
crash=$(field crash)
other=$(field other)
echo "loadtest: games $(field games), ox88 Threads $THREADS: illegal $illegal, time losses $timeloss," \
    "crashes $crash, other faults $other; opponent faults ${opponent_faults:-?}; PGN $PGN"
if [ "$illegal$timeloss$crash$other" != "0000" ] || [ "${opponent_faults:-1}" != "0" ]; then
    echo "loadtest: FAULTS" >&2
    exit 1
fi
echo "loadtest: no faults"
