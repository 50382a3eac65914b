package runlock

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

func TestSecondLockNamesHolder(t *testing.T) {
	dir := t.TempDir()
	open := func() osio.Dir {
		d, err := osio.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	first, err := Dir(open(), dir, nil)
	if errors.Is(err, result.ErrNotSupported) {
		clydetest.Skipf(t, "no locks here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	started := time.Date(2026, 5, 4, 3, 2, 1, 0, time.Local)
	holders := func() []Holder { return []Holder{{PID: 4242, Host: "box", Started: started}} }
	_, err = Dir(open(), dir, holders)
	var held *HeldError
	if !errors.As(err, &held) {
		t.Fatalf("second lock: %v, want a HeldError", err)
	}
	for _, want := range []string{"pid 4242", "box", "2026-05-04 03:02:01", dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %s", err, want)
		}
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := Dir(open(), dir, holders)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again.Release()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("locking created %d entries in the directory", len(entries))
	}
}
