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
: > "$work/mdtest"; : > "$work/clyde"; : > "$work/clyde-co"
# clyde twice: bonnie++'s readdir order, and --creation-order (mdtest's: by
# name in the order the files were made), which is what mdtest's stat and
# remove phases do.
clyde_run() {
  rm -rf "$work/cl"; mkdir -p "$work/cl"
  mpiexec -n "$RANKS" "$BIN" fs -d "$work/cl" -s 0 -n "$FILESK:0:0:1" --no-history --json "$work/cl.json" -q "$@" >/dev/null 2>&1
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["runs"][0]["tests"]; nf=lambda x: x["ops"]/((x["elapsed_ns"]-x.get("flush_ns",0))/1e9); print(t[6]["rate_per_sec"], t[7]["rate_per_sec"], t[8]["rate_per_sec"], nf(t[6]), nf(t[8]))' "$work/cl.json"
}
for _ in $(seq "$ROUNDS"); do
  rm -rf "$work/md"
  mpiexec -n "$RANKS" "$MDTEST" -n "$items" -u -F -d "$work/md" 2>/dev/null |
    awk '/File creation/ {c=$4} /File stat/ {s=$4} /File removal/ {r=$4} END {print c, s, r}' >> "$work/mdtest"
  clyde_run >> "$work/clyde"
  clyde_run --creation-order >> "$work/clyde-co"
done
awk 'FILENAME==ARGV[1] {mc+=$1; ms+=$2; mr+=$3; n++; next}
  FILENAME==ARGV[2] {cc+=$1; cs+=$2; cr+=$3; m++; next}
  {oc+=$1; os+=$2; or+=$3; fc+=$4; fr+=$5; k++}
  END {printf "  %-8s %12s %12s %7s %14s %7s\n", "phase", "mdtest/s", "clyde/s", "ratio", "creation-ord/s", "ratio";
       printf "  %-8s %12.0f %12.0f %7.2f %14.0f %7.2f\n", "create", mc/n, cc/m, (cc/m)/(mc/n), oc/k, (oc/k)/(mc/n);
       printf "  %-8s %12.0f %12.0f %7.2f %14.0f %7.2f\n", "stat", ms/n, cs/m, (cs/m)/(ms/n), os/k, (os/k)/(ms/n);
       printf "  %-8s %12.0f %12.0f %7.2f %14.0f %7.2f\n", "remove", mr/n, cr/m, (cr/m)/(mr/n), or/k, (or/k)/(mr/n);
       printf "  clyde --creation-order without the closing syncfs (bonnie++ times one; mdtest only with -Y): create %.0f/s (%.2f), remove %.0f/s (%.2f)\n", fc/k, (fc/k)/(mc/n), fr/k, (fr/k)/(mr/n)}' "$work/mdtest" "$work/clyde" "$work/clyde-co"
