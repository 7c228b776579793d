# Shared by the match scripts (sourced, not run): plays games with a standard runner,
# fastchess or cutechess-cli, and reads the result from the PGN it writes.
#
#   RUNNER   the runner's command (default: fastchess if installed, else cutechess-cli)
#   BOOK     an EPD or FEN file of openings (default: made by `ox88 genfens`, see make_book)
#
# The two runners take the same options but for -pgnout, so one command line serves both.

# The runner's command, or an error naming what to install.
find_runner() {
    if [ -n "${RUNNER:-}" ]; then
        command -v "$RUNNER" >/dev/null || { echo "$0: RUNNER=$RUNNER is not a command" >&2; exit 2; }
    elif command -v fastchess >/dev/null; then
        RUNNER=fastchess
    elif command -v cutechess-cli >/dev/null; then
        RUNNER=cutechess-cli
    else
        echo "$0: no match runner: install fastchess (https://github.com/Disservin/fastchess) or" \
            "cutechess-cli, or name one with RUNNER=/path/to/runner" >&2
        exit 2
    fi
}

# make_book ENGINE COUNT SEED FILE: COUNT balanced openings from ENGINE's `genfens` (random
# plies from the start, then a short search), written as EPD as OpenBench writes them.
make_book() {
    local engine=$1 count=$2 seed=$3 file=$4
    "$engine" "genfens $count seed $seed book None" quit |
        sed -n 's/^info string genfens //p' |
        awk '{ printf "%s %s %s %s hmvc %d; fmvn %d;\n", $1, $2, $3, $4, $5, $6 }' >"$file.tmp"
    if [ "$(wc -l <"$file.tmp")" -ne "$count" ]; then
        echo "$0: $engine made $(wc -l <"$file.tmp") openings of $count" >&2
        rm -f "$file.tmp"
        exit 2
    fi
    mv "$file.tmp" "$file"
}

# run_match GAMES TC CONCURRENCY SEED BOOK PGN -- ENGINE1 OPTIONS -- ENGINE2 OPTIONS [-- MORE]:
# plays GAMES games (pairs of games per opening, colours swapped), the openings in a random
# order fixed by SEED, and writes them to PGN. Engine options are the runner's
# (`cmd=... name=... option.Hash=16`); MORE goes to the runner as it is.
run_match() {
    local games=$1 tc=$2 concurrency=$3 seed=$4 book=$5 pgn=$6
    shift 6
    [ "${1:-}" = "--" ] && shift
    local first=() second=() more=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do first+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do second+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    more=("$@")
    # fastchess saves its state (to resume with `fastchess -config file=...`) beside the PGN
    # rather than as config.json in the working folder.
    local out=(-pgnout "file=$pgn" -config "outname=${pgn%.pgn}.config.json")
    case $(basename "$RUNNER") in
    cutechess*) out=(-pgnout "$pgn") ;;
    esac
    rm -f "$pgn"
    local command=("$RUNNER" -engine "${first[@]}" -engine "${second[@]}"
        -each proto=uci "tc=$tc" "timemargin=${MARGIN_MS:-100}"
        -openings "file=$book" format=epd order=random -srand "$seed"
        -rounds $(((games + 1) / 2)) -games 2 -repeat -concurrency "$concurrency" -recover
        "${out[@]}" "${more[@]}")
    echo "${command[*]}"
    "${command[@]}"
}
