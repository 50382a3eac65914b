#!/bin/sh
# The version make install, make deb and make release build into clyde,
# from git describe: a tag v1.2.3 gives 1.2.3, four commits after it
# 1.2.3-4-gabcdef012345; before the first tag it is internal/buildinfo's
# default with the commit count and hash (0.1.0-dev.212.g91242b8d0e5f);
# "-dirty" marks uncommitted changes. --deb prints the same as a Debian
# version, ordered as dpkg compares: 1.2.3+4.gabc, 0.1.0~dev.212.gabc;
# --deb VERSION converts the one given.
set -eu
cd "$(dirname "$0")/.."
base=$(sed -n 's/^const defaultVersion = "\(.*\)"$/\1/p' internal/buildinfo/buildinfo.go)
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	v=$base
elif d=$(git describe --tags --match 'v[0-9]*' --abbrev=12 --dirty 2>/dev/null); then
	v=${d#v}
else
	dirty=$(git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
	v=$base.$(git rev-list --count HEAD).g$(git rev-parse --short=12 HEAD)$dirty
fi
case ${1:-} in
--deb)
	v=${2:-$v}
	printf '%s\n' "$v" | sed -e 's/-dirty$/+dirty/' -e 's/-\([0-9][0-9]*\)-g/+\1.g/' -e 's/-/~/g' ;;
*) printf '%s\n' "$v" ;;
esac
