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
