//go:build linux

package rundir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/proc"
)

// TestCleanupRefusesPlantedMarkers plants, as another user (uid 65534),
// run directories whose marker says a dead clyde made them: a marker owned
// by that user, a directory owned by that user, a FIFO as the marker, and a
// marker with a start time of 0. Cleanup removes none and does not hang.
func TestCleanupRefusesPlantedMarkers(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: the planted markers belong to uid 65534")
	}
	host := proc.Host()
	dir := t.TempDir()
	good := Marker{Tool: "clyde", ID: proc.ID{PID: deadPID(t), Host: host, Start: time.Now().Add(-time.Hour)}}
	theirMarker := plant(t, dir, "clyde.11.0000000a", good)
	if err := os.Chown(filepath.Join(theirMarker, MarkerName), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	theirDir := plant(t, dir, "clyde.12.0000000b", good)
	if err := os.Chown(theirDir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	fifo := plant(t, dir, "clyde.13.0000000c", good)
	if err := os.Remove(filepath.Join(fifo, MarkerName)); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(fifo, MarkerName), 0o600); err != nil {
		t.Fatal(err)
	}
	zero := plant(t, dir, "clyde.14.0000000d", Marker{Tool: "clyde", ID: proc.ID{PID: good.PID, Host: host}})
	rep, err := Cleanup(dir, true)
	if err != nil || len(rep.Removed) != 0 {
		t.Fatalf("cleanup removed %v (%v); want nothing removed", rep.Removed, err)
	}
	for _, p := range []string{theirMarker, theirDir, fifo, zero} {
		if _, err := os.Stat(filepath.Join(p, "copy.000", "Bonnie.9")); err != nil {
			t.Errorf("%s lost its contents: %v", p, err)
		}
	}
}
