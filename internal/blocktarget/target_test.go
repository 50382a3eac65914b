package blocktarget

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/result"
)

// newFile resolves path, which does not exist, and prepares it as a
// writing run's file of 1 MiB: created, marked and filled.
func newFile(t *testing.T, path string, warn io.Writer) *Target {
	t.Helper()
	tg, err := Resolve(path, warn)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Exists {
		t.Fatalf("%s exists", path)
	}
	tg.Size, tg.Writes = 1<<20, true
	if err := tg.Prepare(context.Background(), false, func(b []byte) { clear(b) }); err != nil {
		t.Fatal(err)
	}
	return tg
}

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

// TestCreatedFileReplaced: a file renamed over the one clyde created is
// someone else's. A worker that would open it stops without touching it,
// and the cleanup leaves it, with a note and a warning, and still removes
// the marker.
func TestCreatedFileReplaced(t *testing.T) {
	victim := bytes.Repeat([]byte("victim "), 1000)
	for _, when := range []string{"before the workers open it", "while a worker has the original open"} {
		t.Run(when, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			var warn bytes.Buffer
			tg := newFile(t, path, &warn)
			var h osio.File
			var err error
			if when != "before the workers open it" {
				if h, err = tg.OpenWorker(true, false, 0); err != nil {
					t.Fatal(err)
				}
			}
			other := filepath.Join(dir, "other")
			if err := os.WriteFile(other, victim, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
			if !h.Valid() {
				if _, err := tg.OpenWorker(true, false, 0); err == nil || !strings.Contains(err.Error(), "replaced during the run") {
					t.Errorf("worker open of the replacement: err = %v, want a refusal", err)
				}
			} else {
				if _, err := h.Pwrite(make([]byte, 4096), 0); err != nil {
					t.Fatal(err)
				}
				h.Close()
			}
			if err := tg.Cleanup(); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, victim) {
				t.Errorf("the replacement was not left as it was: %v", err)
			}
			if fi, _ := os.Stat(path); fi == nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("the replacement's mode changed: %v", fi)
			}
			if got := entries(t, dir); len(got) != 1 {
				t.Errorf("left %v, want only the replacement (the marker removed)", got)
			}
			if len(tg.Notes) != 1 || !strings.Contains(tg.Notes[0], "replaced during the run") {
				t.Errorf("notes %q", tg.Notes)
			}
			if lines := strings.Split(strings.TrimSpace(warn.String()), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "clyde: warning: "+path) {
				t.Errorf("warning %q, want one line naming %s", warn.String(), path)
			}
		})
	}
}

// TestCreatedFileAndMarker: while the run lasts the marker names the file;
// afterwards both are gone.
func TestCreatedFileAndMarker(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	tg := newFile(t, path, nil)
	d, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, found, err := rundir.ReadFileMarker(d, "f")
	d.Close()
	if !found || err != nil {
		t.Fatalf("marker found %v: %v", found, err)
	}
	if m.File != "f" || m.PID != os.Getpid() || m.Size != 1<<20 || !m.Identity().Same(tg.ID) || m.State() != proc.Alive {
		t.Errorf("marker %+v does not describe the file (%+v) and this run", m, tg.ID)
	}
	if fi, _ := os.Stat(filepath.Join(dir, ".f.clyde-run")); fi.Mode().Perm() != 0o600 {
		t.Errorf("marker mode %v, want 0600", fi.Mode())
	}
	if err := tg.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("left %v", got)
	}
}

// TestFillFile: a file is written in chunks of FillChunk, the last one
// short, each as the fill function made it, and nothing past size.
func TestFillFile(t *testing.T) {
	cases := []struct {
		name   string
		size   int64
		chunks []int
	}{
		{"empty", 0, nil},
		{"less than a chunk", 5000, []int{5000}},
		{"one chunk", FillChunk, []int{FillChunk}},
		{"two and a half", 2*FillChunk + FillChunk/2, []int{FillChunk, FillChunk, FillChunk / 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			f, err := osio.OpenFile(path, osio.ReadWrite|osio.Create)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var got []int
			fill := func(b []byte) {
				got = append(got, len(b))
				for i := range b {
					b[i] = byte(len(got))
				}
			}
			if err := FillFile(context.Background(), f, tc.size, fill); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.chunks) {
				t.Errorf("chunks %v, want %v", got, tc.chunks)
			}
			b, err := os.ReadFile(path)
			if err != nil || int64(len(b)) != tc.size {
				t.Fatalf("file of %d bytes (%v), want %d", len(b), err, tc.size)
			}
			for i, c := range tc.chunks {
				if at := i * FillChunk; b[at] != byte(i+1) || b[at+c-1] != byte(i+1) {
					t.Errorf("chunk %d holds %d..%d, want %d", i, b[at], b[at+c-1], i+1)
				}
			}
		})
	}
	t.Run("stopped", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		f, err := osio.OpenFile(filepath.Join(t.TempDir(), "f"), osio.ReadWrite|osio.Create)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := FillFile(ctx, f, FillChunk, func([]byte) {}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the context's", err)
		}
	})
}

// TestSplitRefusesNoName: a path whose last component names no file is a
// usage error naming --filename; a path in a directory splits there.
func TestSplitRefusesNoName(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{".", "..", string(filepath.Separator)} {
		if _, _, err := Split(p); !result.IsUsage(err) || !strings.Contains(err.Error(), "does not name a file") {
			t.Errorf("Split(%q): err = %v, want a usage error", p, err)
		}
	}
	d, base, err := Split(filepath.Join(dir, "f"))
	if err != nil || base != "f" || d != dir {
		t.Errorf("Split: %q %q %v, want %q and f", d, base, err, dir)
	}
}
