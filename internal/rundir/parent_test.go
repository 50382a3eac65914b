package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/runlock"
	"github.com/clydebench/clyde/result"
)

// TestOpenParentLocks: a second run in a locked directory is refused with
// the first run named from its marker; a job's rank (lock false) opens it
// without the lock; Close gives the lock back.
func TestOpenParentLocks(t *testing.T) {
	dir := t.TempDir()
	first, err := OpenParent("-d", dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if first.NoLock != nil {
		first.Close()
		clydetest.Skipf(t, "no run locks here: %v", first.NoLock)
	}
	run, err := Create(first.Dir, "clyde fs -d first")
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenParent("-d", dir, true)
	var held *runlock.HeldError
	if !errors.As(err, &held) || !strings.Contains(err.Error(), "clyde fs -d first") {
		t.Fatalf("second run: %v, want the lock refused naming the first run", err)
	}
	rank, err := OpenParent("-d", dir, false)
	if err != nil {
		t.Fatalf("a job's rank, unlocked: %v", err)
	}
	rank.Close()
	if err := errors.Join(run.Remove(), first.Close()); err != nil {
		t.Fatal(err)
	}
	again, err := OpenParent("-d", dir, true)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	again.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %d entries", len(entries))
	}
}

func TestOpenParentRefusal(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{file, filepath.Join(file, "missing")} {
		p, err := OpenParent("--to", path, true)
		var ue *result.UsageError
		if p != nil || !errors.As(err, &ue) || ue.Flag != "--to" {
			t.Errorf("OpenParent(%s) = %v, %v; want a usage error for --to", path, p, err)
		}
	}
	var p *Parent
	if err := p.Close(); err != nil {
		t.Errorf("nil Close: %v", err)
	}
}
