//go:build linux

package blockbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// TestReadOfUnwrittenFileRefused: a file whose space is reserved but never
// written (fallocate -l, as a LUN file is often made) reads as zeros from
// memory; ORION measured 37984 MB/s on one. Reading it is refused in one line
// saying how to fill it, --allow-sparse measures it with a note, a job
// that writes it first is not refused, and a written file is read as usual.
func TestReadOfUnwrittenFileRefused(t *testing.T) {
	dir := t.TempDir()
	lun := filepath.Join(dir, "lun")
	f, err := os.Create(lun)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Fallocate(int(f.Fd()), 0, 0, 4<<20); err != nil {
		f.Truncate(4 << 20) // no fallocate here: a hole does as well
	}
	f.Close()
	job := func(rw RW) Job {
		// One pass over the file, however busy the machine: a 100 ms
		// time-based read did no I/O at all on a saturated CI machine.
		j := NewJob(lun)
		j.RW, j.Runtime, j.TimeBased = rw, time.Minute, false
		return j
	}
	res, err := Run(context.Background(), job(RandRead))
	if !result.IsUsage(err) || res != nil || !strings.Contains(err.Error(), "--allow-sparse") || !strings.Contains(err.Error(), "fill it first") {
		t.Fatalf("read of a fallocated file: %v, want a refusal saying how to fill it", err)
	}
	j := job(RandRead)
	j.AllowSparse = true
	res, err = Run(context.Background(), j)
	if err != nil {
		t.Fatalf("--allow-sparse: %v", err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "never written") {
		t.Fatalf("--allow-sparse: notes %q", res.Notes)
	}
	w := job(Write)
	w.DestroyData = true
	if _, err := Run(context.Background(), w); err != nil {
		t.Fatalf("a write of the whole file: %v", err)
	}
	res, err = Run(context.Background(), job(RandRead))
	if err != nil {
		t.Fatalf("read of the written file: %v", err)
	}
	if strings.Contains(strings.Join(res.Notes, "\n"), "never written") {
		t.Fatalf("read of the written file: notes %q", res.Notes)
	}
}
