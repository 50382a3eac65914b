//go:build linux

package pagecache

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/admit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// Stack is what the files of one directory are read through beneath
// their own page cache, decided once per run (StackOf): the block device
// under a FUSE filesystem (ntfs-3g reads it through the device's page
// cache), and every loop device down to what holds the data, each with
// its backing opened read-only for the run. Drop drops them all before a
// read that must be cold; Close closes them.
type Stack struct {
	// inMemory names the directory's own filesystem when it keeps its
	// files in memory (tmpfs): no drop frees them.
	inMemory string
	device   *deviceLevel
	levels   []level
}

// deviceLevel is the block device beneath a FUSE filesystem.
type deviceLevel struct {
	path string
	f    osio.File
	size int64
	err  string
}

// level is one loop device: what the result says of it, and its backing,
// open read-only where there is something to drop (no direct I/O, not in
// memory), osio.NoFile otherwise.
type level struct {
	rec result.CacheLevel
	f   osio.File
}

// StackOf finds, once for a run, what the files in dir are read through:
// fs is dir's filesystem as the provenance recorded it (its type and
// source). What cannot be opened or followed is kept as an error of its
// level, and reads through it are then not cold (Drop); nothing here
// fails the run.
func StackOf(dir string, fs result.Filesystem) *Stack {
	s := &Stack{}
	var sfs unix.Statfs_t
	if unix.Statfs(dir, &sfs) == nil {
		s.inMemory = inMemory(sfs.Type)
	}
	if fs.Type == "fuseblk" && strings.HasPrefix(fs.Source, "/dev/") {
		s.device = openDevice(fs.Source)
	}
	loops, err := admit.LoopsUnder(dir)
	if err != nil {
		s.levels = append(s.levels, level{rec: result.CacheLevel{ResidentBytes: -1,
			Error: fmt.Sprintf("cannot follow the device of %s to what holds its data: %v", dir, err)}})
		return s
	}
	for _, l := range loops {
		s.levels = append(s.levels, openLevel(l))
	}
	return s
}

// openDevice opens the block device beneath a FUSE filesystem by the path
// rule (internal/safepath): non-blocking, a block device only, read-only.
func openDevice(path string) *deviceLevel {
	d := &deviceLevel{path: path, f: osio.NoFile}
	f, _, err := safepath.Open(path, osio.ReadOnly, safepath.BlockDevice)
	if err != nil {
		d.err = "open " + path + ": " + err.Error()
		return d
	}
	size, err := unix.Seek(f.Fd(), 0, 2)
	if err != nil || size <= 0 {
		f.Close()
		d.err = "size of " + path + ": not a block device with a size"
		return d
	}
	d.f, d.size = f, size
	return d
}

// openLevel opens loop device l's backing by the path rule, read-only,
// non-blocking, a regular file or a block device as the kernel says it
// is (one with direct I/O is not opened: nothing of it is cached), and
// checks that what was opened is what the loop device reads (a
// file renamed or replaced since is not dropped in its place). Its range
// is what the loop device maps: from its offset, its size limit or the
// rest of the backing.
func openLevel(l admit.StackLoop) level {
	lv := level{f: osio.NoFile, rec: result.CacheLevel{Loop: l.Device, Backing: l.Backing,
		OffsetBytes: l.Offset, Bytes: l.SizeLimit, DirectIO: l.DirectIO, ResidentBytes: -1}}
	kind := safepath.BlockDevice
	if l.File {
		kind = safepath.Regular
	}
	if l.DirectIO {
		// Nothing to drop, and nothing is opened: past the host's cache,
		// unless the backing file is itself memory.
		var sfs unix.Statfs_t
		if l.File && unix.Statfs(l.Backing, &sfs) == nil {
			lv.rec.Cached = inMemory(sfs.Type)
		}
		return lv
	}
	if l.Backing == "" {
		lv.rec.Error = "the kernel does not say what " + l.Device + " reads"
		return lv
	}
	f, _, err := safepath.Open(l.Backing, osio.ReadOnly, kind)
	if err != nil {
		lv.rec.Error = "open " + l.Device + "'s backing: " + err.Error()
		return lv
	}
	var st unix.Stat_t
	if err := unix.Fstat(f.Fd(), &st); err != nil {
		f.Close()
		lv.rec.Error = "stat " + l.Backing + ": " + err.Error()
		return lv
	}
	switch {
	case l.File && (st.Dev != l.BackingDev || st.Ino != l.BackingIno),
		!l.File && l.BackingRdev != 0 && st.Rdev != l.BackingRdev:
		f.Close()
		lv.rec.Error = l.Backing + " is no longer what " + l.Device + " reads (renamed or replaced since it was attached)"
		return lv
	}
	size := st.Size
	if !l.File {
		size, err = unix.Seek(f.Fd(), 0, 2)
		if err != nil {
			f.Close()
			lv.rec.Error = "size of " + l.Backing + ": " + err.Error()
			return lv
		}
	}
	if end := lv.rec.OffsetBytes + lv.rec.Bytes; lv.rec.Bytes <= 0 || end > size {
		lv.rec.Bytes = max(0, size-lv.rec.OffsetBytes)
	}
	if l.File {
		var sfs unix.Statfs_t
		if unix.Fstatfs(f.Fd(), &sfs) == nil {
			lv.rec.Cached = inMemory(sfs.Type)
		}
	}
	lv.f = f // a level in memory (Cached) is kept open only to count it
	return lv
}

// Drop drops the host's cache of every level beneath files whose own
// pages were just dropped (osio.EvictPageCache), nearest first, so what
// one level writes back on the way is dropped by the next: the FUSE
// filesystem's device, then each loop device's backing over the range it
// maps. want is how much data the read is about to read: a level is cold
// when under 1% of that is still resident in its range. A loop device
// with direct I/O is not touched; one whose backing is in memory (tmpfs)
// is not cold.
func (s *Stack) Drop(want int64) Dropped {
	var d Dropped
	if s == nil {
		d.Cold = true
		return d
	}
	if s.device != nil {
		st := s.device.drop(want)
		d.Device = &st
	}
	d.Cold = true
	for _, l := range s.levels {
		rec := l.rec
		switch {
		case rec.Error != "":
			rec.Cold = false
		case rec.Cached != "":
			// Nothing to drop: the cache is all there is.
			rec.Cold = false
			if l.f.Valid() {
				rec.ResidentBytes, _ = osio.ResidentRange(l.f, rec.OffsetBytes, rec.Bytes)
			}
		case rec.DirectIO:
			rec.Cold = true
		default:
			resident, err := osio.DropRange(l.f, rec.OffsetBytes, rec.Bytes)
			if err != nil {
				rec.Error = "drop " + rec.Backing + ": " + err.Error()
				break
			}
			rec.Evicted, rec.ResidentBytes = true, resident
			rec.Cold = resident*100 < want
		}
		d.Cold = d.Cold && rec.Cold
		d.Stack = append(d.Stack, rec)
	}
	return d
}

// drop drops the whole device's clean pages and counts what is still
// resident (the device is the FUSE daemon's; nothing is written to it).
func (d *deviceLevel) drop(want int64) result.CacheState {
	st := result.CacheState{ResidentBytes: -1, FileBytes: d.size, Method: osio.DropRangeMethod}
	if d.err != "" {
		st.Error = d.err
		return st
	}
	resident, err := osio.DropRange(d.f, 0, d.size)
	if err != nil {
		st.Error = d.path + ": " + err.Error()
		return st
	}
	st.Evicted, st.ResidentBytes = true, resident
	st.Cold = resident*100 < want
	return st
}

// InMemory names the directory's filesystem when it keeps its files in
// memory (tmpfs, ramfs), "" otherwise.
func (s *Stack) InMemory() string {
	if s == nil {
		return ""
	}
	return s.inMemory
}

// Close closes the backings the stack holds open.
func (s *Stack) Close() {
	if s == nil {
		return
	}
	if s.device != nil && s.device.f.Valid() {
		s.device.f.Close()
		s.device.f = osio.NoFile
	}
	for i := range s.levels {
		if s.levels[i].f.Valid() {
			s.levels[i].f.Close()
			s.levels[i].f = osio.NoFile
		}
	}
}

// Device is the block device beneath a FUSE filesystem that Drop drops,
// "" when there is none.
func (s *Stack) Device() string {
	if s == nil || s.device == nil {
		return ""
	}
	return s.device.path
}
