//go:build linux

package blockpreset

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
)

// TestExistingFile: the sustained run on a user's existing file writes
// 30% of its I/O, so it needs --destroy-data, and refused it leaves the
// file as it was.
func TestExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "user.img")
	if err := os.WriteFile(path, []byte(strings.Repeat("data", 256<<10)), 0o640); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	j := SustainedJob(path)
	j.Runtime, j.TimeBased, j.Direct = 0, false, false
	_, err := RunSustained(context.Background(), j)
	var re *blockbench.RefusedError
	if !errors.As(err, &re) || re.Allow != "--destroy-data" || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want a refusal naming %s and --destroy-data", err, path)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a refused write changed the file")
	}
	if fi, _ := os.Stat(path); fi == nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode changed: %v", fi)
	}
}
