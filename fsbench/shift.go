package fsbench

import (
	"context"
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/rundir"
)

// Shifter is a Phases whose ranks read each other's files (--rank-shift,
// mdtest's -N): PeerDirs gets this rank's private directory (its name in
// Dir) and file-test directory names and returns those of the rank whose
// files this rank's stat and delete phases use.
type Shifter interface {
	PeerDirs(ctx context.Context, private, testDir string) (peerPrivate, peerTestDir string, err error)
}

// openPeer opens, through Dir's descriptor, the private directory of the
// rank whose files this rank stats and deletes, and each copy's directory
// in it. It must be a clyde run directory (its name and marker), owned by
// this user: the peer's files are read and removed, so a name from the
// wire never leads anywhere else.
func (r *runner) openPeer(ctx context.Context, parent osio.Dir) error {
	sh := r.opts.Phases.(Shifter) // Run checked
	priv, testDir, err := sh.PeerDirs(ctx, r.private.Name, r.copies[0].testDir)
	if err != nil {
		return fmt.Errorf("rank shift: %w", err)
	}
	if !isTestDirName(testDir) {
		return fmt.Errorf("rank shift: the peer rank sent %q, not a clyde run directory", testDir)
	}
	peer, err := rundir.Join(parent, priv, "")
	if err != nil {
		return fmt.Errorf("rank shift: the peer rank's directory: %w", err)
	}
	d := peer.Dir
	for i, c := range r.copies {
		cd := d
		if r.opts.Concurrency > 1 {
			if cd, err = d.OpenSubdir(osio.Name(fmt.Sprintf("copy.%03d", i))); err != nil {
				_ = peer.Remove()
				return fmt.Errorf("rank shift: open the peer's copy directory: %w", err)
			}
		}
		c.peer = place{dir: cd, testDir: testDir}
	}
	if r.opts.Concurrency > 1 {
		return peer.Remove() // closes it: the copies hold their own
	}
	return nil
}

// isTestDirName is the file-test directory's name: Bonnie.PID.
func isTestDirName(s string) bool {
	const prefix = "Bonnie."
	if len(s) <= len(prefix) || s[:len(prefix)] != prefix {
		return false
	}
	for _, ch := range s[len(prefix):] {
		if ch < '0' || ch > '9' {
			return false
		}
	}
	return true
}
