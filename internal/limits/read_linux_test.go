//go:build linux

package limits

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPidsRoom: the room is the least along the cgroup's path, in v2 and in
// v1's pids hierarchy; "max" is no limit.
func TestPidsRoom(t *testing.T) {
	root := t.TempDir()
	// cgroup2 mounted at root, v1's pids hierarchy at root/pids
	mountinfo := []byte("30 1 0:26 / " + root + " rw shared:4 - cgroup2 cgroup2 rw\n" +
		"31 1 0:27 / " + root + "/pids rw shared:5 - cgroup cgroup rw,pids\n")
	write := func(rel, max, cur string) {
		d := filepath.Join(root, rel)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "pids.max"), []byte(max+"\n"), 0o644)
		os.WriteFile(filepath.Join(d, "pids.current"), []byte(cur+"\n"), 0o644)
	}
	write("a", "100", "90")
	write("a/b", "max", "5")
	write("pids/c", "50", "10")
	tests := []struct {
		name, procCgroup string
		want             int
		set              bool
	}{
		{"v2 parent limit", "0::/a/b\n", 10, true},
		{"v1 pids", "8:pids:/c\n0::/\n", 40, true},
		{"none", "0::/zz\n", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, set := pidsRoom([]byte(tc.procCgroup), mountinfo)
			if got != tc.want || set != tc.set {
				t.Fatalf("pidsRoom = %d, %v; want %d, %v", got, set, tc.want, tc.set)
			}
		})
	}
}
