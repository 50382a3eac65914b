package ioengine

import (
	"errors"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

// TestFallocCalls holds falloc to fio's calls, seen in the file: a write
// allocates its block and extends the file, a read allocates without
// changing the size, a trim punches its block out; each counts its
// block's bytes. A write on a read-only descriptor fails with nothing
// counted, and a sync is refused as fio's engine fails it.
func TestFallocCalls(t *testing.T) {
	const bs = 64 << 10
	path := filepath.Join(testDir(t), "falloc.dat")
	f, err := osio.OpenFile(path, osio.ReadWrite|osio.Create)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := osio.Fallocate(f, osio.AllocKeepSize, 0, 4096); errors.Is(err, unix.EOPNOTSUPP) {
		clydetest.Skipf(t, "the temporary directory's filesystem has no fallocate: %v", err)
	}
	e, err := falloc.Open(Config{Files: []osio.File{f}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	state := func() (size, blocks int64) {
		var st unix.Stat_t
		if err := unix.Stat(path, &st); err != nil {
			t.Fatal(err)
		}
		return st.Size, st.Blocks * 512
	}
	_, before := state()
	for _, c := range []struct {
		op         Op
		off        int64
		size       int64 // the file's size after the call
		allocDelta int64 // the bytes allocated it adds (negative: frees)
	}{
		{Write, 1 << 20, 1<<20 + bs, bs},
		{Read, 4 << 20, 1<<20 + bs, bs},
		{Trim, 1 << 20, 1<<20 + bs, -bs},
	} {
		u := &Unit{Op: c.op, Off: c.off, Buf: make([]byte, bs)}
		if s := e.Queue(u); s != Completed || u.Err != nil || u.N != bs {
			t.Fatalf("%s at %d: status %d, %d bytes, %v; want completed, %d bytes", c.op, c.off, s, u.N, u.Err, bs)
		}
		size, blocks := state()
		if size != c.size || blocks-before != c.allocDelta {
			t.Errorf("after the %s at %d: size %d, %d bytes more allocated; want %d and %d", c.op, c.off, size, blocks-before, c.size, c.allocDelta)
		}
		before = blocks
	}
	if u := (&Unit{Op: Sync}); e.Queue(u) != Completed || !errors.Is(u.Err, ErrNotSupported) {
		t.Errorf("a sync: %v, want it refused", u.Err)
	}
	ro, err := osio.OpenFile(path, osio.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	er, _ := falloc.Open(Config{Files: []osio.File{ro}, Depth: 1})
	if u := (&Unit{Op: Write, Off: 0, Buf: make([]byte, bs)}); er.Queue(u) != Completed || u.Err == nil || u.N != 0 {
		t.Errorf("a write on a read-only descriptor: %d bytes, %v; want it failed, none counted", u.N, u.Err)
	}
}

// TestFallocCheck refuses the jobs fio's falloc runs differently or fails:
// one that only reads (fio opens O_RDWR and allocates; clyde would open
// read-only), one that syncs.
func TestFallocCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		job  Job
		ok   bool
	}{
		{"write", Job{Writes: true}, true},
		{"trim", Job{Trims: true}, true},
		{"read and write", Job{Reads: true, Writes: true}, true},
		{"read only", Job{Reads: true}, false},
		{"write and fsync", Job{Writes: true, Syncs: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := falloc.Check(c.job); (err == nil) != c.ok {
				t.Errorf("Check: %v; want accepted %v", err, c.ok)
			}
		})
	}
}
