package blockbench

import (
	"context"
	"github.com/clydebench/clyde/internal/blocktarget"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/preflight"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/result"
)

// The files a plan creates: where they go (a private run directory,
// internal/rundir, for CrystalDiskMark and --fill), and what is checked of
// their filesystem before anything is created (internal/preflight).

// fillWriter writes the fill files of a private directory: incompressible
// data, each file from its own seed.
func fillWriter(seed uint64) rundir.FillWriter {
	return func(ctx context.Context, f osio.File, k int, size int64) error {
		return blocktarget.FillFile(ctx, f, size, chunkFill(Buffer{Kind: BufferRandom}, seed+uint64(k)+1))
	}
}

// planPrivate checks, before anything is created, what the plan asks of
// the filesystem: that the files it creates in a private directory share
// one directory, that a fill has room, that an uncached run's targets can
// bypass the page cache. It returns the private directory to make
// (internal/rundir; nil when the plan needs none).
func planPrivate(p *Plan, targets []*target) (*rundir.Private, error) {
	if p.RequireUncached {
		if err := checkUncached(targets, p.AllowCached); err != nil {
			return nil, err
		}
	}
	if !p.PrivateDir && !p.Fill.Set() {
		return nil, nil
	}
	pd := &rundir.Private{Fill: p.Fill, Flag: "--filename", Command: "clyde block"}
	for _, t := range targets {
		switch {
		case t.Device && p.Fill.Set():
			return nil, result.Usagef("--fill", "%s is a block device; a fill needs a filesystem to fill", t.Given)
		case t.Diskless && p.Fill.Set():
			return nil, result.Usagef("--fill", "ioengine null has no file, so no filesystem to fill")
		case t.Diskless:
			continue
		case t.Exists:
			if pd.ParentPath == "" && p.Fill.Set() {
				pd.ParentPath = t.DirPath
			}
			continue
		case !p.PrivateDir:
			continue
		case pd.ParentPath != "" && pd.ParentPath != t.DirPath:
			return nil, result.Usagef("--filename", "the files of one run go in one private directory; %s is not in %s", t.Given, pd.ParentPath)
		}
		pd.ParentPath = t.DirPath
		pd.Need += uint64(t.Size)
		t.Private = pd
	}
	if pd.ParentPath == "" {
		return nil, nil // nothing to create, nothing to fill
	}
	return pd, pd.CheckFill()
}

// preflightNewFiles refuses a plan whose new test files do not fit in the
// free space (or inodes) of the filesystem they are made on, before
// anything is created, as fs and copy refuse theirs: a 1 GiB file on a
// 32 MiB tmpfs would fill it and then fail. A file counts with its marker
// (and a private run directory with its own), per directory. A fill plan
// checks the files with the fill (rundir.Private.CheckFill).
func preflightNewFiles(p *Plan, targets []*target) error {
	if p.Fill.Set() {
		return nil
	}
	var need preflight.Needs
	if p.PrivateDir {
		need.PerDir.Inodes = 2 // the private directory and its marker
	}
	for _, t := range targets {
		if !t.Exists {
			need.Add(t.DirPath, preflight.Need{Bytes: uint64(t.Size), Inodes: 2}) // the file and its marker
		}
	}
	return need.Check("the test file", preflight.Advice{Space: "give a smaller --size, or a directory on a larger filesystem", Inodes: "free some inodes there"})
}

// checkUncached refuses targets an uncached run would still measure the
// page cache on (unless allowCached: directCacheNote notes them instead),
// and a platform without uncached I/O.
func checkUncached(targets []*target, allowCached bool) error {
	if !osio.DirectSupported {
		return result.Usagef("--buffered", "this platform has no uncached (direct) I/O; add --buffered to run through the page cache")
	}
	for _, t := range targets {
		if err := t.CheckUncached(allowCached); err != nil {
			return err
		}
	}
	return nil
}

// pathSnapshot is the space of the filesystem holding a file target, for a
// run without a private directory: the same figures, looked up by path.
func pathSnapshot(t *target) *result.BlockSpace {
	if t.Device || t.Diskless {
		return nil
	}
	s, err := preflight.Stat(t.DirPath)
	if err != nil {
		return nil
	}
	return &result.BlockSpace{Path: t.DirPath, TotalBytes: s.TotalBytes, UsedBytes: s.UsedBytes(), AvailBytes: s.AvailBytes}
}
