#!/usr/bin/env bash
# fio-example-prepare.sh EXAMPLE OUT DIR: one of fio's job files (examples/,
# t/jobs/) with only what must change on a test machine, the same for fio
# and for clyde: its directory= and filename= pointed into DIR (a device
# name, /dev/sdX, becomes a file sdX there; a list keeps its last name),
# size= cut to (or, for a device's whole size, set to) SIZE, and so are
# filesize=, io_size=, io_limit= and offset_increment= (cross-stripe-verify's
# io_size=120g wrote 70 GB before the survey's timeout, and its
# offset_increment=124g lays out a device's worth per clone), runtime= to
# RUNTIME, loops= to 2 and, when RAMP_TIME is set, ramp_time= to it. The
# result goes to OUT. scripts/bench-fio-examples.sh and fiojob's survey of
# fio's files (TestFioSurvey) both use it, so both tools always run the same
# file.
#
# Env: SIZE (default 64m), RUNTIME (s, default 3), RAMP_TIME (unset: kept).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 EXAMPLE OUT DIR" >&2; exit 2; }
SIZE=${SIZE:-64m} RUNTIME=${RUNTIME:-3}
ramp=()
if [ -n "${RAMP_TIME:-}" ]; then
	ramp=(-e 's|^([[:space:]]*)ramp_time=.*|\1ramp_time='"$RAMP_TIME"'|')
fi
sed -E -e 's|^([[:space:]]*)directory=.*|\1directory='"$3"'|' \
	-e 's|^([[:space:]]*)filename=(/dev/)?([^[:space:];#]*/)?([^/[:space:];#]+).*|\1filename=\4|' \
	-e 's|^([[:space:]]*)size=.*|\1size='"$SIZE"'|' \
	-e 's|^([[:space:]]*)(filesize\|io_size\|io_limit\|offset_increment)=.*|\1\2='"$SIZE"'|' \
	-e 's|^([[:space:]]*)runtime=.*|\1runtime='"$RUNTIME"'|' \
	-e 's|^([[:space:]]*)loops=.*|\1loops=2|' "${ramp[@]}" "$1" |
	awk -v dir="$3" -v size="$SIZE" 'BEGIN { print "[global]"; print "directory=" dir; print "size=" size } { print }' >"$2"
