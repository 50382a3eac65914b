//go:build linux

package proc

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMountNamespaces: on a fake tree, tasks that link to one namespace
// are one entry, a thread's own namespace is its own, this process comes
// first; a tree with no links lists this process alone.
func TestMountNamespaces(t *testing.T) {
	root := t.TempDir()
	ns := func(name string) string {
		p := filepath.Join(root, "nsfs", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(task, target string) {
		d := filepath.Join(root, task, "ns")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(d, "mnt")); err != nil {
			t.Fatal(err)
		}
	}
	host, other, thread := ns("host"), ns("other"), ns("thread")
	link("self", host)
	link("1", host)
	link("1/task/1", host)
	link("42", other)
	link("42/task/42", other)
	link("42/task/43", thread)
	link("77", other)
	got := MountNamespaces(root)
	want := []MountNS{{PID: os.Getpid(), Dir: "self", Self: true}, {PID: 42, Dir: "42"}, {PID: 42, Dir: "42/task/43"}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %d namespaces", got, len(want))
	}
	seen := map[uint64]bool{}
	for i, g := range got {
		if g.PID != want[i].PID || g.Dir != want[i].Dir || g.Self != want[i].Self || g.Ino == 0 || seen[g.Ino] {
			t.Errorf("namespace %d: %+v, want %+v with an inode of its own", i, g, want[i])
		}
		seen[g.Ino] = true
	}
	if got := MountNamespaces(t.TempDir()); len(got) != 1 || !got[0].Self {
		t.Errorf("tree without links: %+v", got)
	}
	if real := MountNamespaces("/proc"); len(real) == 0 || !real[0].Self || real[0].Ino == 0 {
		t.Errorf("/proc: %+v", real)
	}
}
