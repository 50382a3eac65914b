#!/usr/bin/env bash
# bench-orion.sh: one ORION mixed data point, clyde orion against fio running
# the same two jobs at once, side by side, ROUNDS rounds alternating tools.
#
# The point: SMALL outstanding 8 KiB random reads while LARGE outstanding
# 1 MiB random reads run (ORION's -run advanced -matrix point -type rand),
# O_DIRECT on a file on the disk (DISKDIR), for DURATION seconds. fio gets one
# group of two jobs started together (ioengine=io_uring, clyde's engine for
# every ORION load), with iodepth SMALL and LARGE. Small IOPS and large MB/s
# (2^20 bytes/s, ORION's MBPS) are compared, with the clyde/fio ratio of each
# round as median [min..max].
#
# Env: SMALL (4), LARGE (2), DURATION (s, 10), ROUNDS (3), SIZE (MiB, 2048),
# DISKDIR (/var/tmp).
set -euo pipefail
SMALL=${SMALL:-4}
LARGE=${LARGE:-2}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
SIZE=${SIZE:-2048}
DISKDIR=${DISKDIR:-/var/tmp}
for tool in fio jq; do
	command -v "$tool" >/dev/null || { echo "bench-orion: $tool is not installed"; exit 0; }
done
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
file="$DISKDIR/clyde-bench-orion-$$.dat"
trap 'rm -rf "$work" "$file"' EXIT
(cd "$root" && go build -o "$work/clyde" ./cmd/clyde)
fio --name=layout --filename="$file" --size="${SIZE}m" --rw=write --bs=1m --output=/dev/null
echo "$file" >"$work/bench.lun"

run_clyde() {
	(cd "$work" && ./clyde orion -run advanced -testname bench -matrix point -num_small "$SMALL" -num_large "$LARGE" \
		-size_small 8 -size_large 1024 -type rand -duration "$DURATION" -output-dir "$work/out" --no-history \
		--json "$work/clyde.json" >/dev/null)
	jq -r '.orion.sets[0].points[] | select(.small > 0 and .large > 0) | "\(.small_iops) \(.large_mbps)"' "$work/clyde.json"
}
run_fio() {
	fio --output-format=json --filename="$file" --size="${SIZE}m" --direct=1 --ioengine=io_uring --time_based \
		--runtime="$DURATION" --randrepeat=0 \
		--name=small --rw=randread --bs=8k --iodepth="$SMALL" \
		--name=large --rw=randread --bs=1m --iodepth="$LARGE" >"$work/fio.json"
	jq -r '"\(.jobs[0].read.iops) \(.jobs[1].read.bw_bytes / 1048576)"' "$work/fio.json"
}
rm -rf "$work/out"
mkdir "$work/out"
: >"$work/rounds"
for r in $(seq "$ROUNDS"); do
	if ((r % 2)); then
		f=$(run_fio)
		c=$(run_clyde)
	else
		c=$(run_clyde)
		f=$(run_fio)
	fi
	echo "$f $c" >>"$work/rounds"
done
echo "clyde orion vs $(fio --version): small 8 KiB random reads at load $SMALL with large 1 MiB random reads at load $LARGE,"
echo "at once, O_DIRECT on $(stat -f -c %T "$DISKDIR") in $DISKDIR, ${DURATION}s x $ROUNDS rounds, tools alternating"
awk '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function span(a, n,   i, lo, hi) { lo = hi = a[1]; for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }; return sprintf("[%.2f..%.2f]", lo, hi) }
{ n++; fs[n] = $1; fl[n] = $2; cs[n] = $3; cl[n] = $4; rs[n] = $3 / $1; rl[n] = $4 / $2 }
END {
	printf "%-22s %12s %12s  %s\n", "figure", "fio", "clyde", "clyde/fio per round: median [min..max]"
	s = span(rs, n); l = span(rl, n)
	printf "%-22s %12.1f %12.1f  %.3f %s\n", "small IOPS", med(fs, n), med(cs, n), med(rs, n), s
	printf "%-22s %12.1f %12.1f  %.3f %s\n", "large MBPS (2^20 B/s)", med(fl, n), med(cl, n), med(rl, n), l
}' "$work/rounds"
