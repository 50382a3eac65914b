#!/usr/bin/env bash
# Many clients (issue 22): what coordination costs (a barrier across 64
# local ranks, and a whole 64-rank job's hello, one phase and close, over
# loopback), then clyde fs under mpiexec beside mdtest with the same ranks
# and files, interleaved: create, stat and remove rates of both and their
# ratios. mdtest is hpc/ior's (build it outside this tree and give MDTEST=PATH);
# without it or mpiexec only the coordination figures are printed.
# Usage: BIN=bin/clyde MDTEST=/path/to/mdtest RANKS=2 FILESK=20 ROUNDS=2 BENCH_DIR=/dev/shm scripts/bench-ranks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/clyde}
RANKS=${RANKS:-2}
FILESK=${FILESK:-20}
ROUNDS=${ROUNDS:-2}
DIR=${BENCH_DIR:-/dev/shm}
echo "bench-ranks: coordination over loopback ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
go test -run '^$' -bench 'Barrier64|Job64' -benchtime 2s ./internal/coord/ | awk '/^Benchmark/ {printf "  %-22s %10.3f ms/op\n", $1, $3/1e6}'
if ! command -v mpiexec >/dev/null || [ -z "${MDTEST:-}" ] || [ ! -x "${MDTEST:-}" ]; then
  echo "bench-ranks: no mdtest comparison (needs mpiexec and MDTEST=path to hpc/ior's mdtest)"
  exit 0
fi
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/clyde
work=$(mktemp -d "$DIR/clyde-bench-ranks.XXXXXX")
trap 'rm -rf "$work"' EXIT
items=$((FILESK * 1024))
echo "bench-ranks: $RANKS ranks x $items empty files in $DIR ($(stat -f -c %T "$DIR")), $ROUNDS interleaved rounds"
: > "$work/mdtest"; : > "$work/clyde"
for _ in $(seq "$ROUNDS"); do
  mpiexec -n "$RANKS" "$MDTEST" -n "$items" -u -F -d "$work/md" 2>/dev/null |
    awk '/File creation/ {c=$4} /File stat/ {s=$4} /File removal/ {r=$4} END {print c, s, r}' >> "$work/mdtest"
  mkdir -p "$work/cl"
  mpiexec -n "$RANKS" "$BIN" fs -d "$work/cl" -s 0 -n "$FILESK:0:0:1" --no-history --json "$work/cl.json" -q >/dev/null 2>&1
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["runs"][0]["tests"]; print(t[6]["rate_per_sec"], t[7]["rate_per_sec"], t[8]["rate_per_sec"])' "$work/cl.json" >> "$work/clyde"
done
awk 'NR==FNR {mc+=$1; ms+=$2; mr+=$3; n++; next} {cc+=$1; cs+=$2; cr+=$3; m++}
  END {printf "  %-8s %12s %12s %7s\n", "phase", "mdtest/s", "clyde/s", "ratio";
       printf "  %-8s %12.0f %12.0f %7.2f\n", "create", mc/n, cc/m, (cc/m)/(mc/n);
       printf "  %-8s %12.0f %12.0f %7.2f\n", "stat", ms/n, cs/m, (cs/m)/(ms/n);
       printf "  %-8s %12.0f %12.0f %7.2f\n", "remove", mr/n, cr/m, (cr/m)/(mr/n)}' "$work/mdtest" "$work/clyde"
