#!/usr/bin/env bash
# Runs clyde fs and bonnie++ with the same flags on each of btrfs, ext4, xfs,
# NTFS (ntfs-3g) and tmpfs, each tool on a freshly made filesystem in a loop
# image, and prints the main figures side by side. Needs root, loop devices
# and the mkfs tools (apt-get install btrfs-progs xfsprogs ntfs-3g bonnie++).
# ntfs-3g is slow (bonnie++ alone takes about 15 minutes there with the default flags).
# Usage: BIN=bin/clyde FLAGS="-s 1024 -r 512 -n 64:4k:0:4" scripts/bench-filesystems.sh
set -euo pipefail
BIN=${BIN:-bin/clyde}
FLAGS=${FLAGS:--s 1024 -r 512 -n 64:4k:0:4}
FILESYSTEMS=${FILESYSTEMS:-btrfs ext4 xfs ntfs tmpfs}
if [ "$(id -u)" != 0 ] || ! command -v bonnie++ >/dev/null; then
  echo "bench-filesystems: needs root and bonnie++; skipped"
  exit 0
fi
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/clyde
work=$(mktemp -d)
mnt="$work/mnt"
mkdir -p "$mnt"
dev=""
cleanup() {
  mountpoint -q "$mnt" && umount "$mnt"
  [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# fresh FS: makes and mounts a new filesystem of type FS on $mnt.
fresh() {
  mountpoint -q "$mnt" && umount "$mnt"
  [ -n "$dev" ] && losetup -d "$dev" && dev=""
  if [ "$1" = tmpfs ]; then
    mount -t tmpfs -o size=4g tmpfs "$mnt"
    return
  fi
  rm -f "$work/img"
  truncate -s 4G "$work/img"
  dev=$(losetup --find --show "$work/img")
  case $1 in
    btrfs) mkfs.btrfs -q -f "$dev" >/dev/null && mount "$dev" "$mnt" ;;
    ext4) mkfs.ext4 -q -F "$dev" && mount "$dev" "$mnt" ;;
    xfs) mkfs.xfs -q -f "$dev" && mount "$dev" "$mnt" ;;
    ntfs) mkntfs -Q -q -F "$dev" 2>/dev/null && mount -t ntfs-3g "$dev" "$mnt" ;;
  esac
}

echo "clyde fs vs bonnie++ $(dpkg-query -W -f '${Version}' bonnie++ 2>/dev/null || echo) with $FLAGS, each on a fresh filesystem"
# shellcheck disable=SC2086
for fs in $FILESYSTEMS; do
  fresh "$fs"
  "$BIN" fs -d "$mnt" $FLAGS -q -m "$fs" --no-history 2>/dev/null | tail -1 > "$work/$fs.clyde"
  fresh "$fs"
  bonnie++ -d "$mnt" $FLAGS -q -m "$fs" -u root 2>/dev/null | tail -1 > "$work/$fs.bonnie"
  go run ./scripts/benchcompare -title "$fs" -bonnie "$work/$fs.bonnie" -clyde "$work/$fs.clyde" -tests 1,2,4,6,8,9,11
done
echo
echo "clyde reads after evicting the page cache (cold); bonnie++ reads what its writes left in memory."
