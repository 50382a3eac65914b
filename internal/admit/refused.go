// Package admit decides whether clyde may write to a target it did not
// create: a block device, or an existing file. It is the one admission rule
// of every command that writes to a target by name (block, cdm, iometer,
// orion all open their targets through blockbench, which asks here).
//
// On Linux the rule is a walk through the kernel's own records (sysfs, the
// mount table of every mount namespace, /proc/swaps, other processes'
// descriptors, maps and io_uring registered files, the exclusive open,
// and for a target file the kernel's leases): from the target to
// everything its data ends in (a loop device's backing file or device,
// device-mapper and md slaves, the disk of a partition) and everything that
// reads from it (loop devices over it, holders, partitions, an extended
// partition's logical ones, file-backed mounts), recursively, each thing
// known by what the kernel keeps live (device numbers, inodes, superblock
// UUIDs; through an overlay, the real file). Anything in that graph that is
// mounted, swapped, held, open, mapped or a member of a mounted
// multi-device filesystem refuses the write whatever the flags, and the
// refusal names the chain from the target to what uses it. A target
// nothing uses still needs --destroy-data. README's Safety section states
// the rule and what it cannot see.
package admit

import (
	"fmt"

	"github.com/clydebench/clyde/result"
)

// What a refusal is about.
const (
	KindDevice = "device"
	KindFile   = "file"
)

// RefusedError is a write to a block device or an existing file that the
// admission rule stopped before anything was written. It unwraps to a
// usage error (exit code 2).
type RefusedError struct {
	// Path is the resolved device node or file; Given is the name on the
	// command line when it differs (a symlink such as /dev/disk/by-id/...).
	Path  string
	Given string
	// Kind is KindDevice or KindFile.
	Kind string
	// Found is what the target holds, or the chain from the target to what
	// uses it ("/dev/loop9 -> /dev/loop8 (its backing device) -> mounted on
	// /mnt (ext4)").
	Found string
	// Allow is the flag that would allow the write; "" when none does
	// (a target in use is never written).
	Allow string
}

func (e *RefusedError) Error() string {
	name := e.Path
	if e.Given != "" && e.Given != e.Path {
		name = fmt.Sprintf("%s (%s)", e.Path, e.Given)
	}
	kind := e.Kind
	if kind == "" {
		kind = KindDevice
	}
	if e.Allow == "" {
		return fmt.Sprintf("refusing to write to %s: %s; no flag allows writing to a %s in use, stop using it first", name, e.Found, kind)
	}
	if kind == KindFile {
		return fmt.Sprintf("refusing to write to %s: found %s; pass %s to overwrite it, or name a path that does not exist yet "+
			"(clyde creates, fills and removes it)", name, e.Found, e.Allow)
	}
	return fmt.Sprintf("refusing to write to %s: found %s; pass %s to overwrite it", name, e.Found, e.Allow)
}

// Unwrap makes a refusal a usage error, so the command exits with code 2.
func (e *RefusedError) Unwrap() error { return &result.UsageError{Flag: "--filename", Msg: e.Error()} }
