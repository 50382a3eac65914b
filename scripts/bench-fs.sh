#!/usr/bin/env bash
# Benchmarks clyde fs against bonnie++ on the same filesystem, interleaving the
# two tools' runs so that machine noise hits both alike, and prints ratios.
# Targets (issue 2): file churn geomean >= 0.95x bonnie++ with every column in
# 0.6-1.6x; per-char, block and rewrite within 0.8-1.25x; RSS under 64 MiB for
# -n 1024, at most bonnie++'s at -n 1024 and 4096 (MEM_SIZES).
# Usage: BIN=bin/clyde ROUNDS=3 CHURN_ROUNDS=7 BENCH_DIR=/dev/shm scripts/bench-fs.sh
# The churn runs last about 4 s each and their phases under a second, so one
# round swings +-15%: they get more rounds (CHURN_ROUNDS) than the I/O runs.
set -euo pipefail
BIN=${BIN:-bin/clyde}
ROUNDS=${ROUNDS:-3}
CHURN_ROUNDS=${CHURN_ROUNDS:-7}
DIR=${BENCH_DIR:-/dev/shm}
if ! command -v bonnie++ >/dev/null; then
  echo "bench-fs: bonnie++ is not installed (apt-get install bonnie++); nothing to compare against"
  exit 0
fi
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/clyde
work=$(mktemp -d "$DIR/clyde-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
uflag=()
[ "$(id -u)" = 0 ] && uflag=(-u root)
fstype=$(stat -f -c %T "$DIR")
echo "bench-fs: $CHURN_ROUNDS (file churn) and $ROUNDS (I/O) interleaved rounds in $DIR ($fstype), $(nproc) CPUs, bonnie++ $(dpkg-query -W -f '${Version}' bonnie++ 2>/dev/null || echo "?")"

pair() { # label, rounds, then the shared flags
  local label=$1 rounds=$2; shift 2
  : > "$work/$label.bonnie"; : > "$work/$label.clyde"
  for r in $(seq "$rounds"); do
    bonnie++ -d "$work" -q "${uflag[@]}" "$@" 2>/dev/null | tail -1 >> "$work/$label.bonnie"
    "$BIN" fs -d "$work" -q --no-history "$@" 2>/dev/null | tail -1 >> "$work/$label.clyde"
  done
}

pair churn "$CHURN_ROUNDS" -s 0 -n 256:4096:512:16
go run ./scripts/benchcompare -title "file churn: -s 0 -n 256:4096:512:16" \
  -bonnie "$work/churn.bonnie" -clyde "$work/churn.clyde" -tests 6,7,8,9,10,11 -geomean 0.95 -range 0.6,1.6

# Big enough that tmpfs block phases take over 0.5 s; -r keeps bonnie++'s 2xRAM rule quiet.
pair io "$ROUNDS" -s 4096 -r 2048 -n 0 -f16
go run ./scripts/benchcompare -title "sequential I/O: -s 4096 -r 2048 -n 0 -f16" \
  -bonnie "$work/io.bonnie" -clyde "$work/io.clyde" -tests 0,1,2,3 -range 0.8,1.25

echo
# Issue 20: clyde's max RSS at most bonnie++'s at -n 1024, and flat at -n 4096
# (names are drawn again from marks of the random stream, not stored).
echo "memory: max RSS of -s 0 -n N (N*1024 files), clyde and bonnie++ side by side in $DIR ($fstype)"
for n in ${MEM_SIZES:-1024 4096}; do
  free=$(df -P -i "$work" | awk 'NR == 2 { print $4 }')
  if [ "${free:-0}" -lt $((n * 1024 + 64)) ]; then
    echo "  -n $n: skipped, $DIR has $free free inodes (BENCH_DIR= a tmpfs with nr_inodes= larger)"
    continue
  fi
  if [ -x /usr/bin/time ]; then
    # -q sends bonnie++'s text to stderr; time's line comes last.
    b=$(/usr/bin/time -f %M bonnie++ -d "$work" -q "${uflag[@]}" -s 0 -n "$n" -r 0 2>&1 >/dev/null | tail -1)
    c=$(/usr/bin/time -f %M "$BIN" fs -d "$work" -q --no-history -s 0 -n "$n" 2>&1 >/dev/null | tail -1)
  else # clyde's own figure (VmHWM); none for bonnie++
    b=0
    "$BIN" fs -d "$work" -q --no-history -s 0 -n "$n" --json "$work/rss.json" >/dev/null 2>&1
    c=$(( $(grep -o '"max_rss_bytes": [0-9]*' "$work/rss.json" | grep -o '[0-9]*$') / 1024 ))
  fi
  awk -v n="$n" -v c="$c" -v b="$b" 'BEGIN {
    if (b > 0) printf "  -n %-5s clyde %6.1f MiB   bonnie++ %6.1f MiB   clyde/bonnie++ %.2fx\n", n, c/1024, b/1024, c/b
    else printf "  -n %-5s clyde %6.1f MiB   (no /usr/bin/time: bonnie++ not measured)\n", n, c/1024 }'
done
