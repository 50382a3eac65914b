package fsbench

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/rundir"
)

// Sharer is a Phases whose ranks work in one shared tree (--shared-dir,
// mdtest without -u): rank 0 makes the private directory, with a marker
// naming the job, and every rank's workers create their files in the same
// test directory and subdirectories, each name prefixed with its worker.
type Sharer interface {
	// SharedRank and SharedSize are this rank's place in the job.
	SharedRank() int
	SharedSize() int
	// TokenHash names the job in the tree's marker; a rank opens only a
	// tree whose marker has its own job's.
	TokenHash() string
	// Hosts and PIDs are every rank's, by rank, for the marker.
	Hosts() ([]string, []int)
	// Tree gives every rank rank 0's private and test directory names
	// (rank 0 passes its own; the others pass "" and wait for it).
	Tree(ctx context.Context, private, testDir string) (string, string, error)
	// Quiesce, on rank 0, returns once every other rank is done with the
	// tree (finished, failed or gone), so that rank 0 may remove it.
	Quiesce()
}

// sharer is the run's Sharer with --shared-dir, nil otherwise.
func (r *runner) sharer() Sharer {
	if !r.opts.SharedDir {
		return nil
	}
	return r.opts.Phases.(Sharer) // Run checked
}

// ownsTree is whether this rank made the shared tree (or there is none).
func (r *runner) ownsTree() bool {
	sh := r.sharer()
	return sh == nil || sh.SharedRank() == 0
}

// treeMaker is whether copy c makes and removes the file-test directories:
// every copy for its own tree, one worker in all for a shared one.
func (r *runner) treeMaker(c *copyState) bool {
	return r.ownsTree() && (r.sharer() == nil || c.index == 0)
}

// makeSharedDir is makePrivateDir's --shared-dir part: rank 0 makes the
// tree with the job in its marker, the others open it once rank 0 has
// (through Dir's descriptor, by the rule of rundir.Join).
func (r *runner) makeSharedDir(ctx context.Context, parent osio.Dir) (*rundir.Run, string, error) {
	sh := r.sharer()
	testDir := fmt.Sprintf("Bonnie.%d", os.Getpid())
	var priv *rundir.Run
	if sh.SharedRank() == 0 {
		hosts, pids := sh.Hosts()
		var err error
		priv, err = rundir.CreateFor(parent, strings.Join(os.Args, " "), &rundir.JobMark{TokenHash: sh.TokenHash(), Hosts: hosts, PIDs: pids})
		if err != nil {
			// the others must hear of it: they wait in Tree
			_, _, _ = sh.Tree(ctx, "", "")
			return nil, "", err
		}
		if _, _, err := sh.Tree(ctx, priv.Name, testDir); err != nil {
			sh.Quiesce()
			return nil, "", joinRemove(err, priv.Remove())
		}
		return priv, testDir, nil
	}
	name, testDir, err := sh.Tree(ctx, "", "")
	if err != nil {
		return nil, "", fmt.Errorf("shared tree: %w", err)
	}
	if name == "" {
		return nil, "", fmt.Errorf("shared tree: rank 0 could not make it")
	}
	if !isTestDirName(testDir) {
		return nil, "", fmt.Errorf("shared tree: rank 0 sent %q, not a test directory", testDir)
	}
	priv, err = rundir.Join(parent, name, sh.TokenHash())
	if err != nil {
		return nil, "", fmt.Errorf("shared tree: %w", err)
	}
	return priv, testDir, nil
}

func joinRemove(err, rmErr error) error {
	if rmErr != nil {
		return fmt.Errorf("%w; cleanup: %v", err, rmErr)
	}
	return err
}

// workerPrefix starts every file name of worker copy on rank in a shared
// tree, so the workers' names never meet.
func workerPrefix(rank, copy int) []byte { return fmt.Appendf(nil, "r%dc%d.", rank, copy) }
