// Package integration proves clyde on real filesystems and under faults: it
// builds the clyde binary once, makes loop-mounted btrfs, ext4, xfs and NTFS
// (ntfs-3g) filesystems and a tmpfs, and runs `clyde fs` and `clyde block`
// on them as a user would, including while the disk fills up, is remounted
// read-only, or the run is interrupted or killed. Every test compares a
// listing of the filesystem before and after: clyde must leave it as it
// found it.
//
// The tests need root and loop devices; elsewhere they skip with the reason.
package integration
