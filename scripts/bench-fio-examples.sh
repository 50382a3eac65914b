#!/usr/bin/env bash
# bench-fio-examples.sh: run a few of fio's own examples/ job files, as fio
# ships them, through fio and through `clyde block FILE`, and print per job
# entry the IOPS of each tool and the clyde/fio ratio. Each file is copied
# with only what must change on a test machine: its directory= and
# filename= pointed into a scratch directory (a device name becomes a
# file), size= cut to (or, for a device's whole size, set to) SIZE,
# runtime= to RUNTIME and loops= to 2 (scripts/fio-example-prepare.sh makes
# the edits, as for fiojob's survey). Each tool runs in a
# directory of its own and lays out its own files.
#
# Env: FIO_EXAMPLES (fio's examples/ directory; default $FIO_SRC/examples,
# as .ci/run and fiojob's survey take it from Debian's fio source package,
# else /usr/share/doc/fio/examples), EXAMPLES (the file
# names), SIZE (default 64m), RUNTIME (s, default 3), DIR (default
# /var/tmp), BIN (clyde binary; built when unset).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
FIO_EXAMPLES=${FIO_EXAMPLES:-${FIO_SRC:+$FIO_SRC/examples}}
FIO_EXAMPLES=${FIO_EXAMPLES:-/usr/share/doc/fio/examples}
EXAMPLES=${EXAMPLES:-"fio-rand-read.fio fio-seq-write.fio fio-rand-RW.fio ssd-test.fio aio-read.fio"}
SIZE=${SIZE:-64m} RUNTIME=${RUNTIME:-3} DIR=${DIR:-/var/tmp}

for tool in fio jq; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "bench-fio-examples: $tool is not installed (apt-get install $tool)"
		exit 0
	fi
done
if [ ! -d "$FIO_EXAMPLES" ]; then
	echo "bench-fio-examples: no fio examples in $FIO_EXAMPLES (Debian does not ship them; set FIO_EXAMPLES to a fio checkout's examples/)"
	exit 0
fi

work=$(mktemp -d "$DIR/clyde-fio-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
BIN=${BIN:-}
case $BIN in "" | /*) ;; *) BIN="$PWD/$BIN" ;; esac # the tools run from inside $work
if [ -z "$BIN" ]; then
	BIN="$work/clyde.bin"
	(cd "$root" && go build -o "$BIN" ./cmd/clyde)
fi

# prepare EXAMPLE OUT TOOLDIR: the example with its places and sizes cut,
# as fiojob's survey of fio's files cuts them (scripts/fio-example-prepare.sh).
prepare() { SIZE=$SIZE RUNTIME=$RUNTIME "$root/scripts/fio-example-prepare.sh" "$1" "$2" "$3"; }

figures() {
	jq -r '.jobs[] | . as $j | ["read", "write"][] as $d | $j[$d] | select(.total_ios > 0) |
		"\($j.jobname) \($d) \(.iops)"' "$1"
}

echo "$(fio --version) vs clyde block on fio's examples, size=$SIZE runtime=${RUNTIME}s, in $(stat -f -c %T "$DIR")"
printf "%-20s %-14s %-5s %11s %11s %8s\n" example job dir "fio IOPS" "clyde IOPS" clyde/fio
for ex in $EXAMPLES; do
	src="$FIO_EXAMPLES/$ex"
	[ -f "$src" ] || { echo "$ex: not in $FIO_EXAMPLES"; continue; }
	mkdir -p "$work/fio" "$work/clyde"
	prepare "$src" "$work/fio.fio" "$work/fio"
	prepare "$src" "$work/clyde.fio" "$work/clyde"
	# from inside $work: an example's write_bw_log and the like go there,
	# never into the caller's directory. A sync before each run: a
	# buffered writer leaves gigabytes dirty, and their writeback would
	# land in the next tool's run (clyde measured 0.5x fio's that way).
	sync
	if ! (cd "$work" && fio --output-format=json --output="$work/fio.json" "$work/fio.fio") >/dev/null 2>"$work/fio.err"; then
		echo "$ex: fio failed: $(head -c 200 "$work/fio.err")"
		continue
	fi
	sync
	if ! (cd "$work" && "$BIN" block "$work/clyde.fio" --no-history --output-format json) >"$work/clyde.json" 2>"$work/clyde.err"; then
		echo "$ex: clyde refused or failed: $(grep -v '^clyde: note' "$work/clyde.err" | head -c 300)"
		continue
	fi
	grep '^clyde: note' "$work/clyde.err" | sed "s|^|  $ex: |" || true
	paste -d' ' <(figures "$work/fio.json") <(figures "$work/clyde.json") |
		awk -v ex="$ex" '{
			if ($1 != $4 || $2 != $5) { printf "%-20s the tools ran different entries: %s\n", ex, $0; next }
			r = $3 > 0 ? $6 / $3 : 0
			printf "%-20s %-14s %-5s %11.0f %11.0f %8.2f\n", ex, $1, $2, $3, $6, r
		}'
	rm -rf "$work/fio" "$work/clyde"
done
