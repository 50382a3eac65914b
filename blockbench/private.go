package blockbench

import (
	"context"
	"io"
	"path/filepath"

	"github.com/clydebench/clyde/internal/admit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/internal/preflight"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// The files a plan creates: where they go (a private run directory,
// internal/rundir, for CrystalDiskMark and --fill), and what is checked of
// their filesystem before anything is created (internal/preflight).

// fillWriter writes the fill files of a private directory: incompressible
// data, each file from its own seed.
func fillWriter(seed uint64) rundir.FillWriter {
	return func(ctx context.Context, f osio.File, k int, size int64) error {
		return fillFile(ctx, f, size, Buffer{Kind: BufferRandom}, seed+uint64(k)+1)
	}
}

// resolvePrivate is a target clyde creates in the plan's private
// directory: its directory resolved, its name taken as it is. Nothing that
// exists at that name matters: the file is made in a fresh directory.
func resolvePrivate(filename string, warn io.Writer) (*target, error) {
	dir, base, err := splitTarget(filename)
	if err != nil {
		return nil, err
	}
	if err := admit.NewFile(filename, dir); err != nil {
		return nil, err
	}
	return &target{given: filename, warn: warn, file: osio.NoFile, dirPath: dir, base: base, resolved: filepath.Join(dir, base)}, nil
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
		case t.device && p.Fill.Set():
			return nil, result.Usagef("--fill", "%s is a block device; a fill needs a filesystem to fill", t.given)
		case t.diskless && p.Fill.Set():
			return nil, result.Usagef("--fill", "ioengine null has no file, so no filesystem to fill")
		case t.diskless:
			continue
		case t.exists:
			if pd.ParentPath == "" && p.Fill.Set() {
				pd.ParentPath = t.dirPath
			}
			continue
		case !p.PrivateDir:
			continue
		case pd.ParentPath != "" && pd.ParentPath != t.dirPath:
			return nil, result.Usagef("--filename", "the files of one run go in one private directory; %s is not in %s", t.given, pd.ParentPath)
		}
		pd.ParentPath = t.dirPath
		pd.Need += uint64(t.size)
		t.private = pd
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
		if !t.exists {
			need.Add(t.dirPath, preflight.Need{Bytes: uint64(t.size), Inodes: 2}) // the file and its marker
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
		if t.diskless {
			continue
		}
		path := t.dirPath
		if t.exists {
			path = t.resolved
		}
		what, err := pagecache.CachedOnly(path)
		if err != nil {
			return result.Usagef("--filename", "cannot tell whether %s can bypass the page cache: %v", path, err)
		}
		if what != "" && !allowCached {
			return result.Usagef("--buffered", "%s is on %s, so unbuffered I/O cannot be measured there; give a path on a disk filesystem, add --buffered to measure it through the cache, or --allow-cached to run it uncached anyway with the result saying the figures are the cache's",
				t.given, what)
		}
		if t.exists && !t.device {
			// A read-only open changes nothing.
			f, _, err := safepath.Open(t.resolved, osio.ReadOnly|osio.Direct, safepath.Regular)
			if err != nil {
				return refusedDirect(t.given, err)
			}
			f.Close()
		}
	}
	return nil
}

// pathSnapshot is the space of the filesystem holding a file target, for a
// run without a private directory: the same figures, looked up by path.
func pathSnapshot(t *target) *result.BlockSpace {
	if t.device || t.diskless {
		return nil
	}
	s, err := preflight.Stat(t.dirPath)
	if err != nil {
		return nil
	}
	return &result.BlockSpace{Path: t.dirPath, TotalBytes: s.TotalBytes, UsedBytes: s.UsedBytes(), AvailBytes: s.AvailBytes}
}
