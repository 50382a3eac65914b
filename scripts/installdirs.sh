#!/bin/sh
# installdirs.sh: the directories `make install` creates, for `make
# uninstall` to remove again when they are empty, and only those (a
# directory that was there before, /usr/local/bin or another package's
# completions directory, stays).
#
#   installdirs.sh make MANIFEST DIR...   create each DIR as install -d does and
#                                         add the directories that were missing
#                                         to MANIFEST (kept in the build tree,
#                                         as CMake keeps install_manifest.txt)
#   installdirs.sh remove MANIFEST        remove the directories MANIFEST lists
#                                         that are empty, deepest first; those
#                                         still holding something stay listed
set -eu
mode=$1 manifest=$2
shift 2
case $mode in
make)
	mkdir -p "$(dirname "$manifest")"
	touch "$manifest"
	for d in "$@"; do
		p=$d
		while [ ! -e "$p" ]; do
			grep -qxF -- "$p" "$manifest" || printf '%s\n' "$p" >>"$manifest"
			p=$(dirname "$p")
		done
		install -d "$d"
	done
	;;
remove)
	[ -f "$manifest" ] || exit 0
	kept=$manifest.kept
	: >"$kept"
	# deepest first: a longer path is never the parent of a shorter one
	awk '{ print length($0) "\t" $0 }' "$manifest" | sort -rn | cut -f2- | while IFS= read -r d; do
		if [ -d "$d" ] && ! rmdir "$d" 2>/dev/null; then
			printf '%s\n' "$d" >>"$kept"
		fi
	done
	if [ -s "$kept" ]; then mv "$kept" "$manifest"; else rm -f "$kept" "$manifest"; fi
	;;
*)
	echo "usage: $0 make MANIFEST DIR... | remove MANIFEST" >&2
	exit 2
	;;
esac
