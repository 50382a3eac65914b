#!/usr/bin/env bash
# cdm-vs-kdiskmark.sh: clyde block --profile cdm against fio run as KDiskMark
# runs it (block.md 4.3), the same four CrystalDiskMark tests read and
# written, side by side on one loop-mounted ext4, ROUNDS rounds alternating
# tools. Prints each tool's best-of-passes MB/s, IOPS and mean latency per row
# and the clyde/fio ratios.
#
# fio gets KDiskMark's options (--randrepeat=0 --refill_buffers --end_fsync=1
# --direct=1 --zero_buffers=0, no --time_based: a run also ends after one pass
# over the file) with ENGINE (default io_uring, clyde's engine; KDiskMark
# itself uses libaio). Its MB/s is taken from bw_bytes (KDiskMark shows
# bw/1000, 2.3% low) and its latency is lat_ns.mean, as clyde's (KDiskMark
# shows clat_ns.mean). The loop device does direct I/O to its image
# (losetup --direct-io=on), so O_DIRECT inside reaches the disk.
#
# KDISKMARK=0 runs fio as clyde runs (time-based, one random buffer reused,
# as CrystalDiskMark's -Z<bs>K) to compare the engines alone: KDiskMark's
# --refill_buffers regenerates the buffer on every write, and without
# --time_based a fast sequential pass over the file ends well before the
# measure time.
#
# Needs root, losetup, mkfs.ext4, fio and jq. Env: ROUNDS (2), PASSES (3),
# MEASURE (s, 5), SIZE (MiB, 1024), ENGINE (io_uring), IMGDIR (/var/tmp),
# KDISKMARK (1).
set -euo pipefail

ROUNDS=${ROUNDS:-2}
PASSES=${PASSES:-3}
MEASURE=${MEASURE:-5}
SIZE=${SIZE:-1024}
ENGINE=${ENGINE:-io_uring}
IMGDIR=${IMGDIR:-/var/tmp}
KDISKMARK=${KDISKMARK:-1}
fioway=(--refill_buffers)
[ "$KDISKMARK" = 0 ] && fioway=(--time_based)

for tool in fio jq losetup mkfs.ext4; do
	command -v "$tool" >/dev/null || { echo "cdm-vs-kdiskmark: $tool is not installed"; exit 0; }
done
[ "$(id -u)" = 0 ] || { echo "cdm-vs-kdiskmark: needs root (loop device, mount)"; exit 0; }

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
img="$IMGDIR/clyde-cdm-vs-fio-$$.img"
mnt="$work/mnt"
dev=""
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$dev" ] && losetup -d "$dev"
	rm -rf "$work" "$img"
}
trap cleanup EXIT
(cd "$root" && go build -o "$work/clyde" ./cmd/clyde)
truncate -s $((SIZE * 3))M "$img"
dev=$(losetup --find --show --direct-io=on "$img")
mkfs.ext4 -q -F "$dev"
mkdir -p "$mnt"
mount "$dev" "$mnt"

# The four tests of CrystalDiskMark 8/9 Default: name bs(KiB) queues threads random(0/1).
tests=("SEQ1M_Q8T1 1024 8 1 0" "SEQ1M_Q1T1 1024 1 1 0" "RND4K_Q32T1 4 32 1 1" "RND4K_Q1T1 4 1 1 1")

# fio_row MODE NAME BS Q T RANDOM: best MB/s, IOPS and lat of PASSES fio
# runs, KDiskMark's way (one fio process per pass).
fio_row() {
	local mode=$1 name=$2 bs=$3 q=$4 th=$5 rnd=$6 rw
	rw=$mode
	[ "$rnd" = 1 ] && rw=rand$mode
	for _ in $(seq "$PASSES"); do
		fio --output-format=json --ioengine="$ENGINE" --randrepeat=0 "${fioway[@]}" --end_fsync=1 --direct=1 \
			--rwmixread=70 --filename="$mnt/kdiskmark.tmp" --name="$rw" --size="${SIZE}m" --zero_buffers=0 \
			--bs="${bs}k" --runtime="$MEASURE" --rw="$rw" --iodepth="$q" --numjobs="$th" --group_reporting |
			jq -r --arg d "$mode" '.jobs[0][$d] | "\(.bw_bytes) \(.iops) \(.lat_ns.mean / 1000)"'
	done | awk -v n="$name" -v m="$mode" '{ if ($1 > b) b = $1; if ($2 > i) i = $2; if (l == "" || $3 < l) l = $3 }
		END { printf "%s %s %.3f %.1f %.2f\n", n, m, b / 1e6, i, l }'
}

for round in $(seq "$ROUNDS"); do
	# clyde: one CrystalDiskMark run, every test read then written.
	"$work/clyde" block --filename "$mnt" --profile cdm --passes "$PASSES" --runtime "$MEASURE" --interval 1 \
		--size "${SIZE}m" --no-history --output-format json >"$work/cdm.json"
	jq -r '.cdm.rows[] | "\(.test | sub(" "; "_")) \(.mode) \(.bw_bytes / 1e6) \(.iops) \(.latency_us)"' "$work/cdm.json" |
		sed "s/^/clyde $round /" >>"$work/rows"
	# fio: KDiskMark's prepare step, then each test as KDiskMark runs it.
	fio --output-format=json --create_only=1 --filename="$mnt/kdiskmark.tmp" --size="${SIZE}m" --zero_buffers=0 \
		--name=prepare >/dev/null
	for mode in read write; do
		for t in "${tests[@]}"; do
			# shellcheck disable=SC2086
			fio_row "$mode" $t | sed "s/^/fio $round /"
			sleep 1
		done
	done >>"$work/rows"
	rm -f "$mnt/kdiskmark.tmp"
done

echo "clyde --profile cdm vs fio ($(fio --version), ioengine=$ENGINE, ${fioway[*]}), ext4 on a direct-io loop device"
echo "on $(stat -f -c %T "$IMGDIR") in $IMGDIR; test size ${SIZE} MiB, best of $PASSES passes of ${MEASURE} s, $ROUNDS rounds alternating"
printf "%-12s %-5s %10s %10s %7s %10s %10s %7s %9s %9s %7s\n" test mode "fio MB/s" "clyde" ratio "fio IOPS" clyde ratio "fio lat" clyde ratio
awk '{ k = $3 " " $4; if ($1 == "fio") { if ($5 > fb[k]) { fb[k] = $5; fi[k] = $6 }; if (fl[k] == "" || $7 < fl[k]) fl[k] = $7 }
	else { if ($5 > cb[k]) { cb[k] = $5; ci[k] = $6 }; if (cl[k] == "" || $7 < cl[k]) cl[k] = $7 }; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
	END { for (j = 1; j <= n; j++) { k = order[j]; split(k, p, " ")
		printf "%-12s %-5s %10.3f %10.3f %7.3f %10.1f %10.1f %7.3f %9.2f %9.2f %7.3f\n", p[1], p[2], fb[k], cb[k], cb[k] / fb[k],
			fi[k], ci[k], ci[k] / fi[k], fl[k], cl[k], cl[k] / fl[k] } }' "$work/rows"
echo "(MB/s = 10^6 bytes/s; latency: mean total latency in us, lower is better; each cell the best over rounds and passes)"
