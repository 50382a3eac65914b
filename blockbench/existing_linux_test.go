//go:build linux

package blockbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"
)

// userFile is a file of someone's with 1 MiB of data (room for a preset's
// largest block).
func userFile(t *testing.T) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "user.img")
	if err := os.WriteFile(path, []byte(strings.Repeat("data", 256<<10)), 0o640); err != nil {
		t.Fatal(err)
	}
	return path, 1 << 20
}

// TestExistingFileWrites runs whole jobs on a user's file: anything that
// writes needs destroy-data and leaves the file as it was when refused;
// reads need nothing. (The presets' packages hold their runs to the same:
// cdm's and blockpreset's TestExistingFile.)
func TestExistingFileWrites(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(j *Job)
		refused bool
	}{
		{"write", func(j *Job) { j.RW = Write }, true},
		{"randrw", func(j *Job) { j.RW, j.RWMixRead = RandRW, 99 }, true},
		{"read", func(j *Job) { j.RW = RandRead }, false},
		{"write with destroy-data", func(j *Job) { j.RW, j.DestroyData = Write, true }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, _ := userFile(t)
			before, _ := os.ReadFile(path)
			j := countJob(path, Read, 64<<10, 4096)
			tc.edit(&j)
			_, err := Run(context.Background(), j)
			after, _ := os.ReadFile(path)
			fi, _ := os.Stat(path)
			if fi == nil || fi.Mode().Perm() != 0o640 {
				t.Errorf("the file's mode changed: %v", fi)
			}
			if !tc.refused {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) || re.Allow != "--destroy-data" || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want a refusal naming %s and --destroy-data", err, path)
			}
			if !bytes.Equal(before, after) {
				t.Error("a refused write changed the file")
			}
		})
	}
}

// TestCleanupFailureKeepsMarker: when the data file cannot be removed the
// marker stays, so the cleanup can be run again.
func TestCleanupFailureKeepsMarker(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: making a file immutable (chattr +i) is how its removal is made to fail")
	}
	dir := t.TempDir()
	path := leftover(t, dir, "f", nil)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	const immutable = 0x10 // FS_IMMUTABLE_FL, linux/fs.h
	setFlags := func(on bool) error {
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err != nil {
			return err
		}
		if on {
			flags |= immutable
		} else {
			flags &^= immutable
		}
		return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
	}
	if err := setFlags(true); err != nil {
		f.Close()
		clydetest.Skipf(t, "this filesystem cannot make a file immutable: %v", err)
	}
	_, err = Cleanup(path, false)
	if uerr := setFlags(false); uerr != nil {
		t.Fatal(uerr)
	}
	f.Close()
	if err == nil || !strings.Contains(err.Error(), "the marker is kept") {
		t.Fatalf("err = %v, want the failed removal reported", err)
	}
	if got := entries(t, dir); strings.Join(got, ",") != ".f.clyde-run,f" {
		t.Fatalf("left %v, want the file and its marker", got)
	}
	res, err := Cleanup(path, false)
	if err != nil || len(res.Removed) != 2 {
		t.Fatalf("second cleanup: %+v, %v", res, err)
	}
}
