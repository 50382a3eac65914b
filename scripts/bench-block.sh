#!/usr/bin/env bash
# bench-block.sh: run fio and clyde block side by side on tmpfs for the three
# speed targets of clyde block and print clyde/fio ratios.
#
#   psync 4 KiB random read, one job:  IOPS ratio  >= 0.95
#   io_uring QD32 4 KiB random read:   IOPS ratio  >= 1.0
#   user CPU per I/O:                  clyde/fio   <= 1.0
#
# Each pair runs ROUNDS times, alternating tools, so a noisy neighbour hurts
# both alike. The table gives each tool's best run, and the clyde/fio ratio of
# every round as median [min..max], which shows how noisy the machine was.
#
# CPU is measured the same way for both tools: the user and system time of
# the whole process (every thread, io_uring's io-wq kernel workers included,
# since they belong to the process), as the shell's `time` reports it for the
# child, over the process's life, divided by the I/Os the tool reports. Both
# tools' JSON usr_cpu/sys_cpu cover only the job's own thread (on Linux),
# without the io-wq workers, so neither is used here. Start-up and teardown
# are a few milliseconds of a RUNTIME-second run for both.
#
# tmpfs cannot complete a read without blocking, so io_uring hands every read
# to an io-wq kernel thread there, for both tools: the QD32 row on tmpfs
# measures how the submitter and that thread share two cores. A second QD32
# row reads with O_DIRECT from a file on a real disk (DISKDIR), where
# completions come from the device as io_uring is meant to be used. The
# libaio rows run Linux native AIO in both tools: buffered on DIR (the kernel
# copies inside io_submit) and O_DIRECT on the disk. The mmap, posixaio and
# null rows run fio's engines of those names in both tools (null does no I/O
# at all: the row compares the two tools' own per-I/O loops).
#
# A last table checks that clyde's presets add nothing over a plain job of
# the same shape: the RND4K Q1T1 read row of --profile cdm (--buffered, on
# DIR) and a one-line 4 KiB random-read Iometer access specification at 1
# outstanding I/O (clyde iometer, its per-I/O draw) against clyde block
# --rw randread at iodepth 1, alternating. Goal: preset/plain IOPS >= 0.97.
#
# Env: RUNTIME (s, default 5), ROUNDS (default 3), SIZE (default 512m), DIR
# (default /dev/shm), DISKDIR (default /var/tmp; empty skips the disk row).
set -euo pipefail

RUNTIME=${RUNTIME:-5}
ROUNDS=${ROUNDS:-3}
SIZE=${SIZE:-512m}
DIR=${DIR:-/dev/shm}
DISKDIR=${DISKDIR-/var/tmp}

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
diskfile=""
[ -n "$DISKDIR" ] && diskfile="$DISKDIR/clyde-bench-$$.dat"
cdmdir="$DIR/clyde-bench-cdm-$$"
trap 'rm -rf "$work" "$file" "$cdmdir" ${diskfile:+"$diskfile"}' EXIT
(cd "$root" && go build -o "$work/clyde" ./cmd/clyde)

# fio lays the file out once; both tools then read the same blocks.
fio --name=layout --filename="$file" --size="$SIZE" --rw=write --bs=1m --output=/dev/null

# timed OUT CMD...: runs CMD with stdout to OUT (its stderr, such as
# clyde's notes, to OUT.err) and prints "user_s sys_s" of the whole process.
timed() {
	local out=$1
	shift
	local TIMEFORMAT='%3U %3S'
	{ time "$@" >"$out" 2>"$out.err"; } 2>&1
}

# per_io JSON USER SYS: prints "iops usr_ns_per_io sys_ns_per_io".
per_io() {
	jq -r --arg u "$2" --arg s "$3" '.jobs[0].read |
		"\(.iops) \(($u|tonumber) * 1e9 / .total_ios) \(($s|tonumber) * 1e9 / .total_ios)"' "$1"
}

# run_pair ENGINE IODEPTH [FILE DIRECT]: one line per round, "fio_iops fio_usr
# fio_sys clyde_iops clyde_usr clyde_sys". DIRECT 1 reads with O_DIRECT.
run_pair() {
	local engine=$1 depth=$2 target=${3:-$file} direct=${4:-0} u s
	local cdirect=()
	[ "$direct" = 1 ] && cdirect=(--direct)
	for _ in $(seq "$ROUNDS"); do
		read -r u s < <(timed "$work/fio.json" fio --name=bench --filename="$target" --size="$SIZE" --bs=4k \
			--rw=randread --ioengine="$engine" --iodepth="$depth" --runtime="$RUNTIME" --time_based \
			--direct="$direct" --output-format=json)
		local f
		f=$(per_io "$work/fio.json" "$u" "$s")
		read -r u s < <(timed "$work/clyde.json" "$work/clyde" block --filename "$target" --size "$SIZE" \
			--bs 4k --rw randread --ioengine "$engine" --iodepth "$depth" --runtime "$RUNTIME" \
			"${cdirect[@]}" --no-history --output-format json)
		echo "$f $(per_io "$work/clyde.json" "$u" "$s")"
	done
}

# summarize LABEL: reads run_pair's lines; prints IOPS and CPU rows.
summarize() {
	awk -v label="$1" '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	function lo(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
	function hi(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	{
		n++
		if ($1 > bf) bf = $1
		if ($4 > bc) bc = $4
		r[n] = $4 / $1; uf[n] = $2; uc[n] = $5; ru[n] = $5 / $2; tf[n] = $2 + $3; tc[n] = $5 + $6; rt[n] = ($5 + $6) / ($2 + $3)
	}
	END {
		printf "%-34s %12.0f %12.0f %8.3f  %.3f [%.3f..%.3f]\n", label " IOPS", bf, bc, bc / bf, med(r, n), lo(r, n), hi(r, n)
		printf "%-34s %12.0f %12.0f %8s  %.3f [%.3f..%.3f]\n", label " user CPU ns/I/O", med(uf, n), med(uc, n), "", med(ru, n), lo(ru, n), hi(ru, n)
		printf "%-34s %12.0f %12.0f %8s  %.3f [%.3f..%.3f]\n", label " user+sys CPU ns/I/O", med(tf, n), med(tc, n), "", med(rt, n), lo(rt, n), hi(rt, n)
	}'
}

echo "clyde block vs $(fio --version) on $DIR, 4 KiB random read, ${RUNTIME}s x ${ROUNDS} rounds, tools alternating"
echo "goals: psync IOPS >= 0.95, io_uring QD32 IOPS >= 1.0, user CPU per I/O <= 1.0 (clyde/fio)"
printf "%-34s %12s %12s %8s  %s\n" "figure" "fio" "clyde" "best" "clyde/fio per round: median [min..max]"
run_pair psync 1 | summarize "psync QD1"
run_pair io_uring 32 | summarize "io_uring QD32"
run_pair libaio 8 | summarize "libaio QD8 (buffered)"
run_pair mmap 1 | summarize "mmap QD1"
run_pair posixaio 8 | summarize "posixaio QD8"
run_pair null 1 | summarize "null QD1 (no I/O: the loop)"
if [ -n "$diskfile" ]; then
	fio --name=layout --filename="$diskfile" --size="$SIZE" --rw=write --bs=1m --output=/dev/null
	run_pair io_uring 32 "$diskfile" 1 | summarize "io_uring QD32 direct $(stat -f -c %T "$DISKDIR")"
	run_pair libaio 32 "$diskfile" 1 | summarize "libaio QD32 direct $(stat -f -c %T "$DISKDIR")"
fi
echo "(IOPS columns: each tool's best round. CPU columns: medians of whole-process CPU, io-wq workers included,"
echo " over the process's life, per I/O; the JSON usr_cpu of either tool counts only the job's thread, so it is not used.)"

# preset_pair: one line per round, "plain_iops cdm_iops iometer_iops", all on
# DIR through the page cache, 4 KiB random reads at one I/O in flight.
preset_pair() {
	mkdir -p "$cdmdir"
	cat >"$work/read.icf" <<-ICF
	Version 1.1.0
	'TEST SETUP ====================================================================
	'Run Time
	'	hours      minutes    seconds
	 	0          0          $RUNTIME
	'Ramp Up Time (s)
	 	0
	'END test setup
	'ACCESS SPECIFICATIONS =========================================================
	'Access specification name,default assignment
	 	4K; 100% Read; 100% random,DISK
	'size,% of size,% reads,% random,delay,burst,align,reply
	 	4096,100,100,100,0,1,4096,0
	'END access specifications
	ICF
	for _ in $(seq "$ROUNDS"); do
		"$work/clyde" block --filename "$file" --size "$SIZE" --bs 4k --rw randread --iodepth 1 --runtime "$RUNTIME" \
			--no-history --output-format json >"$work/plain.json"
		"$work/clyde" block --filename "$cdmdir" --profile cdm --cdm-preset real --buffered --passes 1 --interval 0 \
			--runtime "$RUNTIME" --size "$SIZE" --no-history --output-format json >"$work/cdm.json"
		"$work/clyde" iometer "$work/read.icf" --filename "$file" --size "$SIZE" --buffered --no-history \
			--output-format json >"$work/iometer.json" 2>/dev/null
		echo "$(jq -r '.jobs[0].read.iops' "$work/plain.json")" \
			"$(jq -r '.cdm.rows[] | select(.test == "RND4K Q1T1" and .mode == "read") | .iops' "$work/cdm.json")" \
			"$(jq -r '.iometer.tests[0].iops' "$work/iometer.json")"
	done
}

echo
echo "clyde presets vs a plain clyde block job of the same shape on $DIR (4 KiB random read, 1 in flight, ${RUNTIME}s x ${ROUNDS})"
echo "goal: preset/plain IOPS >= 0.97"
printf "%-34s %12s %12s %8s  %s\n" "figure" "plain" "preset" "best" "preset/plain per round: median [min..max]"
preset_pair | awk '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	function lo(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
	function hi(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	{ n++; if ($1 > bp) bp = $1; if ($2 > bc) bc = $2; if ($3 > bi) bi = $3; rc[n] = $2 / $1; ri[n] = $3 / $1 }
	END {
		printf "%-34s %12.0f %12.0f %8.3f  %.3f [%.3f..%.3f]\n", "cdm RND4K Q1T1 read IOPS", bp, bc, bc / bp, med(rc, n), lo(rc, n), hi(rc, n)
		printf "%-34s %12.0f %12.0f %8.3f  %.3f [%.3f..%.3f]\n", "iometer 4K random read spec IOPS", bp, bi, bi / bp, med(ri, n), lo(ri, n), hi(ri, n)
	}'
