#!/usr/bin/env bash
# bench-jobfile.sh: run one fio job file with fio and with `clyde block FILE`,
# side by side, and print per job the IOPS and clat p99 of each tool and
# their clyde/fio ratios. Both tools' JSON is read with the same jq paths
# (.jobs[i].read.iops, .jobs[i].read.clat_ns.percentile["99.000000"]).
#
# Rounds alternate which tool runs first, on the same files; the table gives
# the median of the rounds' ratios with [min..max], which shows how noisy
# the machine was.
#
# Env: JOB (default scripts/jobs/side-by-side.fio), RUNTIME (s, default 5),
# ROUNDS (default 3), SIZE (default 512m), DIR (default /dev/shm), DISKDIR
# (default /var/tmp): the job file sees FILE, DISKFILE, SIZE and RUNTIME.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
JOB=${JOB:-$root/scripts/jobs/side-by-side.fio}
export RUNTIME=${RUNTIME:-5} SIZE=${SIZE:-512m}
ROUNDS=${ROUNDS:-3}
DIR=${DIR:-/dev/shm}
DISKDIR=${DISKDIR:-/var/tmp}

for tool in fio jq; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "bench-jobfile: $tool is not installed (apt-get install $tool)"
		exit 0
	fi
done

work=$(mktemp -d)
export FILE="$DIR/clyde-jobfile-$$.dat" DISKFILE="$DISKDIR/clyde-jobfile-$$.dat"
trap 'rm -rf "$work" "$FILE" "$DISKFILE"' EXIT
(cd "$root" && go build -o "$work/clyde" ./cmd/clyde)

# fio lays the files out once; both tools then work on the same blocks
# (clyde writes an existing file only with --destroy-data).
for f in "$FILE" "$DISKFILE"; do
	fio --name=layout --filename="$f" --size="$SIZE" --rw=write --bs=1m --output=/dev/null
done

# figures JSON: one line per job and direction that did I/O:
# "job dir iops p99_ns".
figures() {
	jq -r '.jobs[] | . as $j | ["read", "write"][] as $d | $j[$d] | select(.total_ios > 0) |
		"\($j.jobname) \($d) \(.iops) \(.clat_ns.percentile["99.000000"])"' "$1"
}

run_fio() {
	# fio may print notes before its JSON (axboe/fio#731): keep from the first {.
	fio --output-format=json "$JOB" | sed -n '/^{/,$p' >"$work/fio.$1.json"
}
run_clyde() {
	"$work/clyde" block "$JOB" --destroy-data --no-history --output-format json >"$work/clyde.$1.json" 2>"$work/clyde.$1.err"
}
for r in $(seq "$ROUNDS"); do
	# Odd rounds run fio first, even ones clyde, so neither always follows
	# the other's page-cache and CPU state.
	if [ $((r % 2)) = 1 ]; then run_fio "$r"; run_clyde "$r"; else run_clyde "$r"; run_fio "$r"; fi
	paste -d' ' <(figures "$work/fio.$r.json") <(figures "$work/clyde.$r.json")
done >"$work/rows"

echo "$(fio --version) vs clyde block on one job file: $(basename "$JOB"), ${RUNTIME}s per job, $ROUNDS rounds"
echo "FILE on $(stat -f -c %T "$DIR"), DISKFILE on $(stat -f -c %T "$DISKDIR"); p99 is clat's, as fio reports it"
printf "%-28s %-5s %11s %11s %18s %9s %9s %18s\n" job dir "fio IOPS" "clyde IOPS" "IOPS clyde/fio" "fio p99" "clyde p99" "p99 clyde/fio"
awk '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function lo(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
function hi(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
{
	if ($1 != $5 || $2 != $6) { print "bench-jobfile: the tools ran different jobs: " $0 > "/dev/stderr"; exit 1 }
	k = $1 " " $2
	if (!(k in n)) order[++nk] = k
	i = ++n[k]
	fi[k, i] = $3; ci[k, i] = $7; fp[k, i] = $4; cp[k, i] = $8
}
END {
	for (o = 1; o <= nk; o++) {
		k = order[o]; m = n[k]
		for (i = 1; i <= m; i++) { a[i] = fi[k, i]; b[i] = ci[k, i]; c[i] = fp[k, i]; d[i] = cp[k, i]; ri[i] = ci[k, i] / fi[k, i]; rp[i] = cp[k, i] / fp[k, i] }
		split(k, kk, " ")
		printf "%-28s %-5s %11.0f %11.0f %6.3f [%.2f..%.2f] %9.0f %9.0f %6.3f [%.2f..%.2f]\n", kk[1], kk[2],
			med(a, m), med(b, m), med(ri, m), lo(ri, m), hi(ri, m), med(c, m), med(d, m), med(rp, m), lo(rp, m), hi(rp, m)
	}
}' "$work/rows"
echo "(IOPS and p99 columns: medians of the rounds; ratios: median [min..max] of each round's clyde/fio)"
