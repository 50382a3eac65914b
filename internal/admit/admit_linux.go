//go:build linux

package admit

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// sysfsRoot, procRoot and devRoot are variables so tests can point them at
// fake trees.
var (
	sysfsRoot = "/sys"
	procRoot  = "/proc"
	devRoot   = "/dev"
)

// Write decides whether clyde may write to the existing block device or
// regular file at resolved (given is the name the user typed, f clyde's
// read-only descriptor on it, its only one, and e what fstat said of f).
// Anything in the target's graph (see the package comment) that is in use
// refuses the write whatever destroy says; a target nothing uses needs
// destroy (--destroy-data). For a device it returns the exclusive (O_EXCL)
// open that keeps it from being mounted or claimed while the run lasts;
// for a file, osio.NoFile.
func Write(given, resolved string, f osio.File, e osio.Entry, destroy bool) (osio.File, error) {
	kind := KindFile
	if e.Dev {
		kind = KindDevice
	}
	refuse := func(found, allow string) error {
		return &RefusedError{Path: resolved, Given: given, Kind: kind, Found: found, Allow: allow}
	}
	root := node{name: resolved, path: resolved, from: -1}
	if e.Dev {
		var st unix.Stat_t
		if err := unix.Stat(resolved, &st); err != nil {
			return osio.NoFile, fmt.Errorf("stat %s: %w", resolved, err)
		}
		root.block, root.dev = true, st.Rdev
		sys, err := sysfsName(st.Rdev)
		if err != nil {
			return osio.NoFile, err
		}
		root.sys = sys
	} else {
		root.id = fileID{dev: e.ID.Dev, ino: e.ID.Ino}
	}
	// The kernel's own answer for a file, asked first: whether anything
	// at all has it open (held); the scans below name what.
	rootHeld := heldUnknown
	if !e.Dev && f.Valid() {
		rootHeld = probeLease(f.Fd())
	}
	s, err := readSystem()
	if err != nil {
		return osio.NoFile, err
	}
	g := walk(s, root)
	if !e.Dev && f.Valid() {
		g.rootFd, g.rootHeld = f.Fd(), rootHeld
	}
	if found := g.inUse(); found != "" {
		return osio.NoFile, refuse(found, "")
	}
	if !e.Dev {
		if !destroy {
			return osio.NoFile, refuse(fmt.Sprintf("an existing file of %d bytes", e.Size), "--destroy-data")
		}
		return osio.NoFile, nil
	}
	ex, err := osio.OpenFile(resolved, osio.ReadOnly|osio.Exclusive)
	if errors.Is(err, unix.EBUSY) {
		return osio.NoFile, refuse(resolved+" -> held open exclusively by another program or the kernel (O_EXCL open failed: device busy)", "")
	}
	if err != nil {
		return osio.NoFile, fmt.Errorf("open %s exclusively: %w", resolved, err)
	}
	if destroy {
		return ex, nil
	}
	sigs, err := readSignatures(ex, resolved)
	ex.Close()
	if err != nil {
		return osio.NoFile, err
	}
	found := "no signature found"
	if len(sigs) > 0 {
		found = strings.Join(sigs, ", ")
	}
	return osio.NoFile, refuse(found, "--destroy-data")
}

func readSignatures(f osio.File, name string) ([]string, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("size of %s: %w", name, err)
	}
	head := make([]byte, min(signatureSpan, size))
	if _, err := f.Pread(head, 0); err != nil {
		return nil, fmt.Errorf("read the first megabyte of %s: %w", name, err)
	}
	tail := make([]byte, min(signatureSpan, size))
	if _, err := f.Pread(tail, size-int64(len(tail))); err != nil {
		return nil, fmt.Errorf("read the last megabyte of %s: %w", name, err)
	}
	return findSignatures(head, tail), nil
}

// NewFile decides whether clyde may create a test file in dir (resolved,
// symlinks followed), for the target the user named given. A file is never
// created on a kernel interface (procfs, sysfs, cgroupfs and their kin), nor
// in the device directory: on devtmpfs, or in /dev itself and what
// shares its filesystem (a container's /dev is a plain tmpfs). There a
// mistyped device name (/dev/sdzz9, /dev/loop999) would become a file in
// memory, measured as if it were the disk, and a write test would need no
// --destroy-data. Separate mounts below /dev (/dev/shm) are filesystems of
// their own and are not refused.
func NewFile(given, dir string) error {
	refuse := func(why string) error {
		return result.Usagef("--filename", "%s does not exist, and clyde does not create files in %s: %s; "+
			"check the device name, or give a path on a filesystem", given, dir, why)
	}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return nil // the create reports it
	}
	if k := safepath.KernelFS(dir); k != "" {
		return refuse("it is on " + k + ", a kernel interface, not a filesystem that holds files")
	}
	if within(dir, devRoot) {
		var dst unix.Stat_t
		if err := unix.Stat(devRoot, &dst); err != nil || dst.Dev == st.Dev {
			return refuse(devRoot + " holds device nodes, and a name there that is no device is a typo")
		}
	}
	mounts, err := sysinfo.ReadMounts(filepath.Join(procRoot, "self", "mountinfo"))
	if err != nil {
		return nil
	}
	for _, m := range mounts {
		if m.FSType == "devtmpfs" && unix.Mkdev(m.Major, m.Minor) == st.Dev {
			return refuse("it is on devtmpfs (mounted on " + m.MountPoint + "), the kernel's device directory, which keeps files in memory")
		}
	}
	return nil
}

// within is true when path is dir or below it, lexically.
func within(path, dir string) bool {
	path, dir = filepath.Clean(path), filepath.Clean(dir)
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}
