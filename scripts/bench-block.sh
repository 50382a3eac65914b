#!/usr/bin/env bash
# bench-block.sh: run fio and clyde block side by side on tmpfs for the three
# speed targets of clyde block and print clyde/fio ratios.
#
#   psync 4 KiB random read, one job:  IOPS ratio  >= 0.95
#   io_uring QD32 4 KiB random read:   IOPS ratio  >= 1.0
#   user CPU per I/O (psync):          clyde/fio   <= 1.0
#
# Each pair runs ROUNDS times, alternating tools, and the best run of each
# tool counts, so a noisy neighbour hurts both alike. Env: RUNTIME (s, default
# 5), ROUNDS (default 3), SIZE (default 512m), DIR (default /dev/shm).
set -euo pipefail

RUNTIME=${RUNTIME:-5}
ROUNDS=${ROUNDS:-3}
SIZE=${SIZE:-512m}
DIR=${DIR:-/dev/shm}

if ! command -v fio >/dev/null 2>&1; then
	echo "bench-block: fio is not installed; nothing to compare against (apt-get install fio)"
	exit 0
fi
if ! command -v jq >/dev/null 2>&1; then
	echo "bench-block: jq is not installed; it reads both tools' JSON (apt-get install jq)"
	exit 0
fi

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
file="$DIR/clyde-bench-$$.dat"
trap 'rm -rf "$work" "$file"' EXIT
(cd "$root" && go build -o "$work/clyde" ./cmd/clyde)

# fio lays the file out once; both tools then read the same blocks.
fio --name=layout --filename="$file" --size="$SIZE" --rw=write --bs=1m --output=/dev/null

# run_pair NAME ENGINE IODEPTH: prints "best_fio_iops best_clyde_iops fio_usr_ns_per_io clyde_usr_ns_per_io"
run_pair() {
	local engine=$1 depth=$2
	local best_f=0 best_c=0 cpu_f=0 cpu_c=0
	for _ in $(seq "$ROUNDS"); do
		fio --name=bench --filename="$file" --size="$SIZE" --bs=4k --rw=randread --ioengine="$engine" \
			--iodepth="$depth" --runtime="$RUNTIME" --time_based --output-format=json >"$work/fio.json"
		"$work/clyde" block --filename "$file" --size "$SIZE" --bs 4k --rw randread --ioengine "$engine" \
			--iodepth "$depth" --runtime "$RUNTIME" --output-format json >"$work/clyde.json"
		read -r f fc < <(jq -r '.jobs[0] | "\(.read.iops) \(.usr_cpu * .read.runtime * 1e4 / .read.total_ios)"' "$work/fio.json")
		read -r c cc < <(jq -r '.jobs[0] | "\(.read.iops) \(.usr_cpu * .read.runtime * 1e4 / .read.total_ios)"' "$work/clyde.json")
		if awk -v a="$f" -v b="$best_f" 'BEGIN{exit !(a>b)}'; then best_f=$f cpu_f=$fc; fi
		if awk -v a="$c" -v b="$best_c" 'BEGIN{exit !(a>b)}'; then best_c=$c cpu_c=$cc; fi
	done
	echo "$best_f $best_c $cpu_f $cpu_c"
}

echo "clyde block vs $(fio --version) on $DIR, 4 KiB random read, ${RUNTIME}s x ${ROUNDS} rounds, best of each"
read -r pf pc pcf pcc < <(run_pair psync 1)
read -r uf uc _ _ < <(run_pair io_uring 32)
awk -v pf="$pf" -v pc="$pc" -v uf="$uf" -v uc="$uc" -v pcf="$pcf" -v pcc="$pcc" 'BEGIN {
	printf "%-28s %14s %14s %8s %8s\n", "target", "fio", "clyde", "ratio", "goal"
	printf "%-28s %14.0f %14.0f %8.3f %8s\n", "psync QD1 IOPS", pf, pc, pc/pf, ">=0.95"
	printf "%-28s %14.0f %14.0f %8.3f %8s\n", "io_uring QD32 IOPS", uf, uc, uc/uf, ">=1.0"
	printf "%-28s %14.1f %14.1f %8.3f %8s\n", "psync user CPU ns per I/O", pcf, pcc, (pcf > 0 ? pcc/pcf : 0), "<=1.0"
	print "(fio counts its job thread'"'"'s CPU; clyde counts the whole process, runtime and GC included)"
}'
