#!/usr/bin/env bash
# Calibration of UCI_Elo: ox88 at a UCI_Elo setting against Stockfish at a UCI_Elo, both
# colours, balanced openings, a fixed seed, with fastchess or cutechess-cli.
#
#   tools/calibrate_elo.sh BINARY ELO [OPPONENT_ELO] [GAMES] [TC] [SEED] [-- more runner arguments]
#
#   BINARY        the ox88 to measure (copy it to a fixed path first; do not rebuild it mid-run)
#   ELO           its UCI_Elo setting (UCI_LimitStrength is set to true)
#   OPPONENT_ELO  Stockfish's UCI_Elo, default ELO rounded to steps of 50, at least 1350 (the
#                 lowest Stockfish 15.1 offers)
#   GAMES         default 100; TC default 5+0.05; SEED default 1
#
# Environment: STOCKFISH (its command, default `stockfish`), RUNNER (default fastchess, else
# cutechess-cli), BOOK (an EPD file of openings; default: GAMES/2 made by BINARY's `genfens`
# from SEED), CONCURRENCY (2), PGN (target/calibrate-ELO.pgn).
#
# Prints the runner's output, then one row for the table in docs/strength.md:
#   | setting | opponent | games | W/D/L | score | Elo ± 95% | est. Elo | faults |
# where Elo is the difference (ox88 minus opponent) and est. Elo the opponent's rating plus it.
# Run it on an otherwise idle machine (timed games).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/match.sh"

if [ $# -lt 2 ]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
binary=$1
elo=$2
shift 2
[ -x "$binary" ] || { echo "calibrate_elo: $binary is not an executable" >&2; exit 2; }
[[ "$elo" =~ ^[0-9]+$ ]] || { echo "calibrate_elo: ELO must be a number, not '$elo'" >&2; exit 2; }
opponent=$(( (elo + 25) / 50 * 50 ))
[ "$opponent" -lt 1350 ] && opponent=1350
[ "$opponent" -gt 2850 ] && opponent=2850
games=100
tc=5+0.05
seed=1
for var in opponent games tc seed; do
    if [ $# -gt 0 ] && [ "$1" != "--" ]; then
        # An empty argument keeps the default, so that a later one can be given alone.
        [ -n "$1" ] && printf -v "$var" '%s' "$1"
        shift
    fi
done
[ "${1:-}" = "--" ] && shift
[[ "$opponent" =~ ^[0-9]+$ ]] || { echo "calibrate_elo: OPPONENT_ELO must be a number, not '$opponent'" >&2; exit 2; }
stockfish=${STOCKFISH:-stockfish}
command -v "$stockfish" >/dev/null || { echo "calibrate_elo: no Stockfish: set STOCKFISH to its command" >&2; exit 2; }
find_runner

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
book=${BOOK:-}
if [ -z "$book" ]; then
    book=$dir/openings.epd
    make_book "$binary" $(((games + 1) / 2)) "$seed" "$book"
fi
pgn=${PGN:-target/calibrate-$elo.pgn}
mkdir -p "$(dirname "$pgn")"
run_match "$games" "$tc" "${CONCURRENCY:-2}" "$seed" "$book" "$pgn" \
    -- "cmd=$binary" name=ox88 option.UCI_LimitStrength=true "option.UCI_Elo=$elo" \
    -- "cmd=$stockfish" "name=sf$opponent" option.UCI_LimitStrength=true "option.UCI_Elo=$opponent" \
    -- "$@"

summary=$(python3 "$here/pgn_result.py" ox88 "$pgn") || { echo "calibrate_elo: no result in $pgn" >&2; exit 1; }
echo "$summary"
result=$(grep '^RESULT' <<<"$summary")
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }
faults=$(( $(field illegal) + $(field timeloss) + $(field crash) + $(field other) ))
est=$(awk -v o="$opponent" -v e="$(field elo)" 'BEGIN { printf "%.0f", o + e }')
echo "tc $tc, seed $seed, binary $binary, PGN $pgn"
printf '| %s | sf%s | %s | %s/%s/%s | %s | %s ± %s | %s | %s |\n' \
    "$elo" "$opponent" "$(field games)" "$(field w)" "$(field d)" "$(field l)" "$(field score)" \
    "$(field elo)" "$(field err)" "$est" "$faults"
