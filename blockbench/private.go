package blockbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/admit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/internal/preflight"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// FillLevel is a level of use to fill the filesystem under test to before a
// run (CrystalDiskMark on an empty drive, then on one with 200 GB in use):
// a percentage of its size, or a size in use. The zero value fills nothing.
type FillLevel struct {
	// Pct is the share of the filesystem's size to have in use (0 < Pct <
	// 100); Bytes the bytes in use. One of them is set.
	Pct   float64
	Bytes int64
	// Request is what the user typed, for the result.
	Request string
}

// Set says whether a fill was asked for.
func (f FillLevel) Set() bool { return f.Pct > 0 || f.Bytes > 0 }

// ParseFill reads --fill: "50%" of the filesystem, or a size in use such
// as "200g".
func ParseFill(s string) (FillLevel, error) {
	s = strings.TrimSpace(s)
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || !(v > 0 && v < 100) {
			return FillLevel{}, result.Usagef("--fill", "%q: want a percentage above 0 and below 100, such as 50%%, or a size in use such as 200g", s)
		}
		return FillLevel{Pct: v, Request: s}, nil
	}
	n, err := ParseSize("--fill", s)
	if err != nil || n <= 0 {
		return FillLevel{}, result.Usagef("--fill", "%q: want a percentage such as 50%% or a size in use such as 200g", s)
	}
	return FillLevel{Bytes: n, Request: s}, nil
}

// target is the bytes in use the level means on a filesystem of s.
func (f FillLevel) target(s preflight.FS) uint64 {
	if f.Pct > 0 {
		return uint64(math.Ceil(float64(s.TotalBytes) * f.Pct / 100))
	}
	return uint64(f.Bytes)
}

// fillMargin is left free beyond a fill and the files a run creates: the
// filesystem's own metadata for them.
const fillMargin = 16 << 20

// fillFileSize is the size of each fill file: small enough that the
// progress line moves, large enough that a big fill is a few hundred files.
const fillFileSize = 256 << 20

// privateDir is a plan's private run directory: the files it creates and
// any fill live in it, reached through its descriptor, and it goes, with
// all in it, at the end.
type privateDir struct {
	parentPath string
	parent     *rundir.Parent
	run        *rundir.Run
	fill       FillLevel
	// need is the bytes the run's new files take.
	need  uint64
	space *result.BlockSpace
	fills []string // names of the fill files written
	notes []string
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
// bypass the page cache. It returns the private directory to make (nil
// when the plan needs none).
func planPrivate(p *Plan, targets []*target) (*privateDir, error) {
	if p.RequireUncached {
		if err := checkUncached(targets, p.AllowCached); err != nil {
			return nil, err
		}
	}
	if !p.PrivateDir && !p.Fill.Set() {
		return nil, nil
	}
	pd := &privateDir{fill: p.Fill}
	for _, t := range targets {
		switch {
		case t.device && p.Fill.Set():
			return nil, result.Usagef("--fill", "%s is a block device; a fill needs a filesystem to fill", t.given)
		case t.diskless && p.Fill.Set():
			return nil, result.Usagef("--fill", "ioengine null has no file, so no filesystem to fill")
		case t.diskless:
			continue
		case t.exists:
			if pd.parentPath == "" && p.Fill.Set() {
				pd.parentPath = t.dirPath
			}
			continue
		case !p.PrivateDir:
			continue
		case pd.parentPath != "" && pd.parentPath != t.dirPath:
			return nil, result.Usagef("--filename", "the files of one run go in one private directory; %s is not in %s", t.given, pd.parentPath)
		}
		pd.parentPath = t.dirPath
		pd.need += uint64(t.size)
		t.private = pd
	}
	if pd.parentPath == "" {
		return nil, nil // nothing to create, nothing to fill
	}
	if !p.Fill.Set() {
		return pd, nil
	}
	s, err := preflight.Stat(pd.parentPath)
	if err != nil {
		return nil, result.Usagef("--fill", "cannot see the space of %s: %v", pd.parentPath, err)
	}
	return pd, pd.checkRoom(s, "--fill")
}

// checkRoom refuses a fill and the run's files that do not fit in s.
func (pd *privateDir) checkRoom(s preflight.FS, flag string) error {
	fill := pd.fillBytes(s)
	if fill+pd.need+fillMargin > s.AvailBytes {
		return result.Usagef(flag, "%s of %s means %s in use, %s more than now; with the test files (%s) and %s to spare that is more than the %s free",
			pd.fill.Request, pd.parentPath, humanize.IBytes(pd.fill.target(s)), humanize.IBytes(fill), humanize.IBytes(pd.need),
			humanize.IBytes(fillMargin), humanize.IBytes(s.AvailBytes))
	}
	return nil
}

func (pd *privateDir) fillBytes(s preflight.FS) uint64 {
	want, used := pd.fill.target(s), s.UsedBytes()
	if !pd.fill.Set() || want <= used {
		return 0
	}
	return want - used
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

// refusedDirect is the refusal of a filesystem that will not open a file
// with O_DIRECT.
func refusedDirect(given string, err error) error {
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, result.ErrNotSupported) {
		return result.Usagef("--direct", "%s: its filesystem refuses uncached (O_DIRECT) opens (%v); run without --direct (cdm and iometer: add --buffered)", given, err)
	}
	return fmt.Errorf("open %s uncached: %w", given, err)
}

// prepare makes the private directory and writes the fill, then records
// the space of the filesystem as the measurements will find it.
func (pd *privateDir) prepare(ctx context.Context, lv *live, seed uint64) error {
	if pd == nil {
		return nil
	}
	// Locked as fs and copy lock theirs: two runs in one directory
	// measure each other.
	parent, err := rundir.OpenParent("--filename", pd.parentPath, true)
	if err != nil {
		return err
	}
	pd.parent = parent
	if parent.NoLock != nil {
		pd.notes = append(pd.notes, fmt.Sprintf("no run lock on %s: %v", pd.parentPath, parent.NoLock))
	}
	run, err := rundir.Create(parent.Dir, "clyde block")
	if err != nil {
		return result.Usagef("--filename", "cannot make a private directory in %s: %v", pd.parentPath, err)
	}
	pd.run = run
	before, err := preflight.StatDir(run.Dir)
	if err != nil {
		return err
	}
	pd.space = &result.BlockSpace{Path: pd.parentPath}
	if pd.fill.Set() {
		if err := pd.checkRoom(before, "--fill"); err != nil {
			return fmt.Errorf("the free space of %s changed since the run was planned: %w", pd.parentPath, err)
		}
		f := &result.BlockFill{Request: pd.fill.Request, TargetUsedBytes: pd.fill.target(before), UsedBeforeBytes: before.UsedBytes()}
		pd.space.Fill = f
		if pd.fillBytes(before) == 0 {
			pd.notes = append(pd.notes, fmt.Sprintf("--fill %s: %s already has %s in use, at or above that level; nothing was written",
				pd.fill.Request, pd.parentPath, humanize.IBytes(before.UsedBytes())))
		}
		start := time.Now()
		err := pd.writeFill(ctx, lv, int64(pd.fillBytes(before)), seed, f)
		f.FillNs = int64(time.Since(start))
		if err != nil {
			return fmt.Errorf("fill %s to %s: %w", pd.parentPath, pd.fill.Request, err)
		}
	}
	now, err := preflight.StatDir(run.Dir)
	if err != nil {
		return err
	}
	pd.space.TotalBytes, pd.space.UsedBytes, pd.space.AvailBytes = now.TotalBytes, now.UsedBytes(), now.AvailBytes
	return nil
}

// writeFill writes n bytes of incompressible data in fill files, each
// synced, so that the space is really in use when the test starts.
func (pd *privateDir) writeFill(ctx context.Context, lv *live, n int64, seed uint64, f *result.BlockFill) error {
	for k := 0; n > 0; k++ {
		size := min(n, fillFileSize)
		name := fmt.Sprintf("fill-%05d.bin", k)
		lv.note(fmt.Sprintf("filling %s to %s: %s of %s", pd.parentPath, pd.fill.Request,
			humanize.IBytes(uint64(f.WrittenBytes)), humanize.IBytes(uint64(f.WrittenBytes+n))))
		file, err := pd.run.Dir.Open(osio.Name(name), osio.ReadWrite|osio.Create, 0o600)
		if err != nil {
			return err
		}
		pd.fills = append(pd.fills, name)
		f.Files++
		err = fillFile(ctx, file, size, Buffer{Kind: BufferRandom}, seed+uint64(k)+1)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		f.WrittenBytes += size
		n -= size
	}
	return nil
}

// remove takes the private directory away with everything in it.
func (pd *privateDir) remove() error {
	if pd == nil {
		return nil
	}
	var err error
	if pd.run != nil {
		err = pd.run.Remove()
		if err == nil && pd.space != nil && pd.space.Fill != nil {
			pd.space.Fill.Removed = true
		}
	}
	return errors.Join(err, pd.parent.Close())
}

// filePath is where a file the plan creates lives in the private directory.
func (pd *privateDir) filePath(base string) string {
	return pd.run.Path + string(os.PathSeparator) + base
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
