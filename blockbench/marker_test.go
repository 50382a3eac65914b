package blockbench

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/result"
)

// deadPID is a pid no process has: above any pid_max.
const deadPID = math.MaxInt32 - 1

// leftover plants what a killed run leaves: the data file, sized, and its
// marker, written by edit's changes to a marker of this process.
func leftover(t *testing.T, dir, name string, edit func(m *rundir.FileMarker)) string {
	t.Helper()
	d, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, err := d.Open(osio.Name(name), osio.ReadWrite|osio.Create, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(bytes.Repeat([]byte{0xc1}, 8192)); err != nil {
		t.Fatal(err)
	}
	e, err := f.Stat()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	e.Size = 8192
	m := rundir.NewFileMarker(name, e)
	m.PID, m.StartTicks = deadPID, 0
	if edit != nil {
		edit(&m)
	}
	if err := rundir.WriteFileMarker(d, m); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
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

// TestCleanupWrapper: blockbench.Cleanup takes the path the user typed to
// internal/rundir's CleanupFile (whose tests hold the rules), and refuses a
// path that names no file.
func TestCleanupWrapper(t *testing.T) {
	dir := t.TempDir()
	path := leftover(t, dir, "f", nil)
	res, err := Cleanup(path, false)
	if err != nil || strings.Join(res.Removed, ",") != path+","+filepath.Join(dir, ".f.clyde-run") {
		t.Fatalf("Cleanup = %+v, %v; want the file, then its marker, removed", res, err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("left %v", got)
	}
	if _, err := Cleanup(dir+"/..", false); !result.IsUsage(err) {
		t.Errorf("Cleanup of a directory's ..: %v, want a usage error", err)
	}
}

// TestRunRefusesLeftover: a target with a marker is refused for any job,
// with the cleanup command or the live run named, and left as it is.
func TestRunRefusesLeftover(t *testing.T) {
	cases := []struct {
		name string
		edit func(m *rundir.FileMarker)
		gone bool // the data file was removed before the kill
		rw   RW
		want string
	}{
		{"killed run, read", nil, false, Read, "run `clyde block --cleanup --filename "},
		{"killed run, write with destroy-data", nil, false, RandWrite, "left over from a clyde run that was killed"},
		{"killed run, only the marker left", nil, true, Write, "run `clyde block --cleanup --filename "},
		{"live run", func(m *rundir.FileMarker) { m.PID, m.StartTicks = os.Getpid(), proc.StartTicks(os.Getpid()) }, false, Read, "in use by clyde pid "},
		{"another host", func(m *rundir.FileMarker) { m.Host = "nfs-peer" }, false, Read, "on host nfs-peer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := leftover(t, dir, "f", tc.edit)
			if tc.gone {
				os.Remove(path)
			}
			before := entries(t, dir)
			j := countJob(path, tc.rw, 4096, 4096)
			j.DestroyData = true
			_, err := Run(context.Background(), j)
			var ue *result.UsageError
			if !errors.As(err, &ue) || ue.Flag != "--filename" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a --filename refusal saying %q", err, tc.want)
			}
			if got := entries(t, dir); strings.Join(got, ",") != strings.Join(before, ",") {
				t.Errorf("entries %v, were %v", got, before)
			}
			if !tc.gone {
				if b, _ := os.ReadFile(path); !bytes.Equal(b, bytes.Repeat([]byte{0xc1}, 8192)) {
					t.Error("the leftover file was changed")
				}
			}
		})
	}
}
