package ioengine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/internal/osio"
)

// TestFtruncateCalls holds ftruncate to fio's call: each write sets the
// file's size to its offset and counts its block's bytes, growing or
// shrinking it; any other op is refused, as fio's engine fails it.
func TestFtruncateCalls(t *testing.T) {
	const bs = 4096
	path := filepath.Join(testDir(t), "ftruncate.dat")
	f, err := osio.OpenFile(path, osio.ReadWrite|osio.Create)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := ftruncate.Open(Config{Files: []osio.File{f}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, off := range []int64{5 * bs, 2 * bs, 0, 9 * bs} {
		u := &Unit{Op: Write, Off: off, Buf: make([]byte, bs)}
		if s := e.Queue(u); s != Completed || u.Err != nil || u.N != bs {
			t.Fatalf("write at %d: status %d, %d bytes, %v", off, s, u.N, u.Err)
		}
		if st, err := os.Stat(path); err != nil || st.Size() != off {
			t.Errorf("after the write at %d the file is %v bytes (%v); want %d", off, st.Size(), err, off)
		}
	}
	for _, op := range []Op{Read, Trim, Sync} {
		if u := (&Unit{Op: op, Buf: make([]byte, bs)}); e.Queue(u) != Completed || !errors.Is(u.Err, ErrNotSupported) || u.N != 0 {
			t.Errorf("%s: %d bytes, %v; want it refused", op, u.N, u.Err)
		}
	}
}

// TestFtruncateCheck takes only a job that writes and does not sync.
func TestFtruncateCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		job  Job
		ok   bool
	}{
		{"write", Job{Writes: true}, true},
		{"read", Job{Reads: true}, false},
		{"read and write", Job{Reads: true, Writes: true}, false},
		{"trim", Job{Trims: true}, false},
		{"write and fsync", Job{Writes: true, Syncs: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := ftruncate.Check(c.job); (err == nil) != c.ok {
				t.Errorf("Check: %v; want accepted %v", err, c.ok)
			}
		})
	}
}
