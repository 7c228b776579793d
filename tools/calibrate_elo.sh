#!/usr/bin/env bash
# Calibration of UCI_Elo: ox88 at a UCI_Elo setting against Stockfish 15.1 at a UCI_Elo
# (match.py's sfX presets), both colours, balanced openings, a fixed seed.
#
#   tools/calibrate_elo.sh BINARY ELO [OPPONENT] [GAMES] [TC] [SEED] [-- more match.py arguments]
#
#   BINARY    the ox88 to measure (copy it to a fixed path first; do not rebuild it mid-run)
#   ELO       its UCI_Elo setting (UCI_LimitStrength is set to true)
#   OPPONENT  a match.py preset, default sfELO (rounded to the ladder's steps of 50, at least
#             sf1350, the lowest Stockfish offers)
#   GAMES     default 100; TC default 5+0.05; SEED default 1
#
# Prints match.py's game lines, then one row for the calibration table of docs/strength.md:
#   | setting | opponent | games | W/D/L | score | Elo ± 95% | est. Elo | faults |
# where Elo is the difference (ox88 minus opponent) and est. Elo the opponent's rating plus it.
# Run it on an otherwise idle machine (timed games): concurrency 2, at high priority if allowed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
match=${MATCH_PY:-$here/../../shared/tools/match.py}
[ -f "$match" ] || match=/work/shared/tools/match.py

if [ $# -lt 2 ]; then
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
binary=$1
elo=$2
shift 2
ladder=$(( (elo + 25) / 50 * 50 ))
[ "$ladder" -lt 1350 ] && ladder=1350
[ "$ladder" -gt 2850 ] && ladder=2850
opponent=sf$ladder
games=100
tc=5+0.05
seed=1
for var in opponent games tc seed; do
    if [ $# -gt 0 ] && [ "$1" != "--" ]; then
        printf -v "$var" '%s' "$1"
        shift
    fi
done
[ "${1:-}" = "--" ] && shift

log=$(mktemp)
trap 'rm -f "$log"' EXIT
python3 "$match" --engine "$binary" \
    --engine-option UCI_LimitStrength=true --engine-option "UCI_Elo=$elo" \
    --opponent "$opponent" --games "$games" --tc "$tc" --concurrency 2 --seed "$seed" "$@" | tee "$log"

result=$(grep '^RESULT' "$log" | tail -n 1)
[ -n "$result" ] || { echo "no RESULT line from match.py" >&2; exit 1; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }
opp_elo=${opponent#sf}
faults=$(( $(field illegal) + $(field timeloss) + $(field crash) + $(field other) ))
est=""
if [[ "$opp_elo" =~ ^[0-9]+$ ]]; then
    est=$(awk -v o="$opp_elo" -v e="$(field elo)" 'BEGIN { printf "%.0f", o + e }')
fi
echo "tc $tc, seed $seed, binary $binary"
printf '| %s | %s | %s | %s/%s/%s | %s | %s ± %s | %s | %s |\n' \
    "$elo" "$opponent" "$(field games)" "$(field w)" "$(field d)" "$(field l)" "$(field score)" \
    "$(field elo)" "$(field err)" "$est" "$faults"
