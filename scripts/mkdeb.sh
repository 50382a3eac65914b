#!/bin/sh
# mkdeb.sh STAGE OUT.deb: builds clyde's Debian package with dpkg-deb from
# make's stage directory (STAGE/clyde, STAGE/man/*.1, STAGE/completion/*).
# The binary is static (CGO_ENABLED=0), so the package depends on nothing;
# it suggests the tools clyde is compared with. Timestamps come from the
# commit (SOURCE_DATE_EPOCH), not the build. DEB_COMPRESS
# picks dpkg-deb's compressor (xz, the default; the test uses gzip, quicker).
set -eu
stage=$1 out=$2
cd "$(dirname "$0")/.."
version=$(scripts/version.sh --deb)
arch=${DEB_ARCH:-$(dpkg --print-architecture)}
maintainer=${DEB_MAINTAINER:-clyde developers <clyde@clydebench.invalid>}
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

root=$(mktemp -d)
chmod 0755 "$root"
trap 'rm -rf "$root"' EXIT
install -D -m 0755 "$stage/clyde" "$root/usr/bin/clyde"
install -d "$root/usr/share/man/man1"
for p in "$stage"/man/*.1; do
	gzip -9n <"$p" >"$root/usr/share/man/man1/$(basename "$p").gz"
done
install -D -m 0644 "$stage/completion/clyde.bash" "$root/usr/share/bash-completion/completions/clyde"
install -D -m 0644 "$stage/completion/_clyde" "$root/usr/share/zsh/vendor-completions/_clyde"
install -D -m 0644 "$stage/completion/clyde.fish" "$root/usr/share/fish/vendor_completions.d/clyde.fish"

doc=$root/usr/share/doc/clyde
install -d "$doc"
license=
for f in LICENSE LICENSE.md COPYING; do [ -f "$f" ] && license=$f && break; done
{
	echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
	echo "Upstream-Name: clyde"
	echo "Source: https://github.com/clydebench/clyde"
	echo
	echo "Files: *"
	echo "Copyright: the clyde authors"
	if [ -n "$license" ]; then
		echo "License: see below"
		sed -e 's/^$/./' -e 's/^/ /' "$license"
	else
		echo "License: none stated"
		echo " The source repository has no LICENSE file yet; until it has one, no"
		echo " licence beyond using this package is granted."
	fi
} >"$doc/copyright"
{
	echo "clyde ($version) unstable; urgency=medium"
	echo
	echo "  * Built from commit $commit ($(scripts/version.sh))."
	echo
	echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$doc/changelog.Debian.gz"
chmod 0644 "$doc/copyright" "$doc/changelog.Debian.gz"

install -d "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: clyde
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Suggests: bonnie++, fio
Section: admin
Priority: optional
Homepage: https://github.com/clydebench/clyde
Description: storage benchmark: bonnie++'s suite and a fio-style block engine
 clyde fs runs bonnie++'s tests with its flags, tables and CSV, and fixes its
 known bugs; clyde block runs fio-style jobs and job files, CrystalDiskMark,
 Iometer and ORION presets on a file or block device without destroying data
 by accident; clyde copy is a file-copy test. Results are kept in a history
 with a regression check for cron.
CONTROL
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dpkg-deb --root-owner-group -Z"${DEB_COMPRESS:-xz}" --build "$root" "$out" >/dev/null
echo "$out"
