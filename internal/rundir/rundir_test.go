package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/proc"
)

func openParent(t *testing.T, dir string) osio.Dir {
	t.Helper()
	d, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestCreateAndRemove(t *testing.T) {
	dir := t.TempDir()
	r, err := Create(openParent(t, dir), "clyde fs -d x")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(r.Path)
	if err != nil || !fi.IsDir() || !namePattern.MatchString(r.Name) {
		t.Fatalf("private directory %s: %v %v", r.Path, fi, err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v, want 0700", fi.Mode().Perm())
	}
	m, ok := ReadMarker(r.Dir)
	if !ok || m.PID != os.Getpid() || m.Command != "clyde fs -d x" {
		t.Fatalf("marker %+v, ok %v", m, ok)
	}
	f, err := r.Dir.Open(osio.Name("big"), osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := r.Dir.Mkdir(osio.Name("sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d entries left", len(entries))
	}
}

// TestRemoveAfterSwap swaps the private directory for a symlink to a
// directory holding a same-named file mid-run: nothing outside may change,
// and the run's own files still go.
func TestRemoveAfterSwap(t *testing.T) {
	if runtime.GOOS == "windows" {
		clydetest.Skip(t, "symlinks need privileges on Windows")
	}
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "Bonnie.1")
	if err := os.WriteFile(victim, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Create(openParent(t, dir), "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.Dir.Open(osio.Name("Bonnie.1"), osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(r.Path, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, r.Path); err != nil {
		t.Fatal(err)
	}
	// The run goes on through its descriptor: reopen and write the file.
	f, err = r.Dir.Open(osio.Name("Bonnie.1"), osio.WriteOnly, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("benchmark")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	err = r.Remove()
	if err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Fatalf("Remove after a swap: %v, want it to say the directory was replaced", err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "user data" {
		t.Fatalf("the file outside changed: %q, %v", b, err)
	}
	if fi, err := os.Lstat(r.Path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the replacement symlink was touched: %v %v", fi, err)
	}
	if entries, _ := os.ReadDir(moved); len(entries) != 0 {
		t.Fatalf("the moved private directory still holds %d entries", len(entries))
	}
}

func plant(t *testing.T, dir, name string, m Marker) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Join(p, "copy.000"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "copy.000", "Bonnie.9"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(p, MarkerName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// deadPID is a pid no process has: a child that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestCleanup(t *testing.T) {
	host := proc.Host()
	dir := t.TempDir()
	now := time.Now()
	dead := plant(t, dir, fmt.Sprintf("clyde.%d.0000dead", 1), Marker{Tool: "clyde", ID: proc.ID{PID: deadPID(t), Host: host, Start: now}})
	alive := plant(t, dir, fmt.Sprintf("clyde.%d.00a11fe0", 2), Marker{Tool: "clyde", ID: proc.ID{PID: os.Getpid(), Host: host, Start: now}})
	other := plant(t, dir, "clyde.3.0011e4e4", Marker{Tool: "clyde", ID: proc.ID{PID: 3, Host: "elsewhere", Start: now}})
	foreign := plant(t, dir, "clyde.4.0bad0bad", Marker{Tool: "fio", ID: proc.ID{PID: 4, Host: host}})
	unrelated := filepath.Join(dir, "clyde.5.notours")
	if err := os.Mkdir(unrelated, 0o700); err != nil {
		t.Fatal(err)
	}
	rep, err := Cleanup(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Removed) != 1 || rep.Removed[0] != dead {
		t.Fatalf("removed %v, want only %s", rep.Removed, dead)
	}
	for _, p := range []string{alive, other, foreign, unrelated} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("%s was removed: %v", p, err)
		}
	}
	joined := strings.Join(rep.Skipped, "\n")
	if !strings.Contains(joined, "in use by clyde pid") || !strings.Contains(joined, "--force") {
		t.Fatalf("skipped %q should name the live run and the other host", joined)
	}
	rep, err = Cleanup(dir, true)
	if err != nil || len(rep.Removed) != 1 || rep.Removed[0] != other {
		t.Fatalf("with --force: removed %v, %v; want %s", rep.Removed, err, other)
	}
}

// TestCleanupRetries makes a removal fail half way (an immutable file) and
// checks the marker is still there, so a second cleanup finishes the job.
func TestCleanupRetries(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: chattr +i")
	}
	if _, err := exec.LookPath("chattr"); err != nil {
		clydetest.Skip(t, "needs chattr (e2fsprogs)")
	}
	host := proc.Host()
	dir := t.TempDir()
	p := plant(t, dir, "clyde.1.00000001", Marker{Tool: "clyde", ID: proc.ID{PID: deadPID(t), Host: host, Start: time.Now().Add(-time.Hour)}})
	stuck := filepath.Join(p, "copy.000", "Bonnie.9")
	if out, err := exec.Command("chattr", "+i", stuck).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "this filesystem has no immutable flag: %s", bytes.TrimSpace(out))
	}
	defer exec.Command("chattr", "-i", stuck).Run()
	if _, err := Cleanup(dir, false); err == nil {
		t.Fatal("cleanup of an immutable file succeeded")
	}
	if _, err := os.Stat(filepath.Join(p, MarkerName)); err != nil {
		t.Fatalf("the marker went before the files: %v", err)
	}
	if err := exec.Command("chattr", "-i", stuck).Run(); err != nil {
		t.Fatal(err)
	}
	if rep, err := Cleanup(dir, false); err != nil || len(rep.Removed) != 1 {
		t.Fatalf("second cleanup: %v, %v", rep, err)
	}
}

func TestJoin(t *testing.T) {
	dir := t.TempDir()
	parent := openParent(t, dir)
	shared, err := CreateFor(parent, "clyde fs --shared-dir", &JobMark{TokenHash: "job-a", Hosts: []string{"h0", "h1"}, PIDs: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Remove()
	own, err := Create(parent, "clyde fs")
	if err != nil {
		t.Fatal(err)
	}
	defer own.Remove()
	cases := []struct {
		name, dir, token, refusal string
	}{
		{"the job's tree", shared.Name, "job-a", ""},
		{"another job's tree", shared.Name, "job-b", "no marker of this job"},
		{"a run of its own, as a job's tree", own.Name, "job-a", "no marker of this job"},
		{"a run of its own, for a rank shift", own.Name, "", ""},
		{"not a run directory", "..", "", "not a clyde run directory"},
		{"a run directory not here", "clyde.1.00000000", "", "is not visible here"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Join(parent, tc.dir, tc.token)
			if tc.refusal != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refusal) {
					t.Fatalf("got %v, want %q", err, tc.refusal)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Joined is not owned: its Remove leaves the directory.
			if err := r.Remove(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, tc.dir, MarkerName)); err != nil {
				t.Fatalf("a joined run's Remove removed it: %v", err)
			}
		})
	}
}
