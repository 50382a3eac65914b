#!/usr/bin/env bash
# clyde block and clyde copy across ranks (issue 22): N ranks under mpiexec
# beside fio with numjobs=N processes, each on a file of its own in one
# directory (fio's directory= names them JOB.N.0), and beside N cp processes
# for copy; interleaved rounds, the aggregate of each and the ratio.
# fio's own many-client mode (--server/--client) would be the closer peer,
# but fio 3.33 drives only one of two servers on one machine, so N local
# jobs stand in for N clients.
# Usage: BIN=bin/clyde RANKS=2 ROUNDS=3 BENCH_DIR=/dev/shm scripts/bench-block-ranks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/clyde}
RANKS=${RANKS:-2}
ROUNDS=${ROUNDS:-3}
DIR=${BENCH_DIR:-/dev/shm}
if ! command -v mpiexec >/dev/null || ! command -v fio >/dev/null; then
  echo "bench-block-ranks: needs mpiexec (mpich) and fio"
  exit 0
fi
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/clyde
work=$(mktemp -d "$DIR/clyde-bench-block-ranks.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "bench-block-ranks: $RANKS ranks (clyde, mpiexec) vs fio numjobs=$RANKS, in $DIR ($(stat -f -c %T "$DIR")), $ROUNDS interleaved rounds, load $(cut -d' ' -f1 /proc/loadavg)"
printf '  %-26s %12s %12s %7s\n' test "fio IOPS" "clyde IOPS" ratio
for spec in "randread 4k" "randwrite 4k" "read 128k"; do
  set -- $spec
  : > "$work/f"; : > "$work/c"
  for _ in $(seq "$ROUNDS"); do
    rm -rf "$work/d"; mkdir "$work/d"; sync
    fio --name=j --directory="$work/d" --size=64m --rw="$1" --bs="$2" --numjobs="$RANKS" --group_reporting \
      --runtime=3 --time_based --output-format=json 2>/dev/null |
      python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(j["read"]["iops"]+j["write"]["iops"])' >> "$work/f"
    rm -rf "$work/d"; mkdir "$work/d"; sync
    mpiexec -n "$RANKS" "$BIN" block --filename "$work/d/f" --size 64m --rw "$1" --bs "$2" --runtime 3 --time_based \
      --output-format json --no-history 2>/dev/null |
      python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(j["read"]["iops"]+j["write"]["iops"])' >> "$work/c"
  done
  paste "$work/f" "$work/c" | awk -v t="$1 $2 x$RANKS" '{f+=$1; c+=$2; n++} END {printf "  %-26s %12.0f %12.0f %7.2f\n", t, f/n, c/n, c/f}'
done
# copy: N ranks each copying its own set, against N cp processes copying
# the same sets side by side (cp --reflink=never then sync -f, clyde with
# --syncfs: one flush per set in both; bench-copy.sh compares one process).
echo "bench-block-ranks: clyde copy across $RANKS ranks vs $RANKS cp processes (1Mx64 and 64Kx512 each), MB/s of all copies over the slowest one's time"
printf '  %-26s %12s %12s %7s\n' set "cp MB/s" "clyde MB/s" ratio
for set in "1m:64" "64k:512"; do
  size=${set%%:*}; count=${set##*:}
  bytes=$(numfmt --from=iec "${size^^}")
  : > "$work/p"; : > "$work/c"
  for _ in $(seq "$ROUNDS"); do
    rm -rf "$work/s"; mkdir -p "$work/s"
    for r in $(seq "$RANKS"); do
      mkdir -p "$work/s/$r/src"
      for i in $(seq "$count"); do head -c "$bytes" /dev/urandom > "$work/s/$r/src/f$i"; done
    done
    sync
    start=$(date +%s.%N)
    for r in $(seq "$RANKS"); do (mkdir "$work/s/$r/dst" && cp --reflink=never "$work/s/$r/src"/* "$work/s/$r/dst"/ && sync -f "$work/s/$r/dst") & done
    wait
    end=$(date +%s.%N)
    echo "$RANKS $count $bytes $start $end" | awk '{print $1*$2*$3/1e6/($5-$4)}' >> "$work/p"
    rm -rf "$work/s" "$work/cl"; mkdir -p "$work/cl"
    mpiexec -n "$RANKS" "$BIN" copy -d "$work/cl" --set "$set" --syncfs --no-history --json "$work/cl.json" -q >/dev/null 2>&1
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mb_per_sec"])' "$work/cl.json" >> "$work/c"
  done
  paste "$work/p" "$work/c" | awk -v t="$set x$RANKS" '{p+=$1; c+=$2; n++} END {printf "  %-26s %12.1f %12.1f %7.2f\n", t, p/n, c/n, c/p}'
done
