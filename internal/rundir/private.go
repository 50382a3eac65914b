package rundir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/preflight"
	"github.com/clydebench/clyde/result"
)

// Private is a run's private directory as a plan sees it before anything
// is created: the directory it goes in, the bytes of the files the run
// makes in it, and a level of use to fill the filesystem to first
// (preflight.Fill), written in it as fill files and removed with it.
// clyde block makes one for the files a job creates (CrystalDiskMark,
// --fill); fs and copy make theirs with OpenParent and Create.
type Private struct {
	// ParentPath is the directory it is made in; Flag the flag that named
	// it, in refusals (block: --filename).
	ParentPath, Flag string
	// Need is the bytes the run's own files take in it.
	Need uint64
	Fill preflight.Fill
	// Command names the run in the marker.
	Command string

	parent *Parent
	// Run is the directory, once Prepare made it.
	Run *Run
	// Space is the filesystem as the measurements find it, after the fill.
	Space *result.BlockSpace
	// Notes go into the result.
	Notes []string
	// fileSize is the size of a fill file; 0 is FillFileSize (tests make
	// it small).
	fileSize int64
}

// FillWriter writes size bytes to f, the k-th fill file (from 0), and
// syncs it, so that the space is really in use when the test starts.
type FillWriter func(ctx context.Context, f osio.File, k int, size int64) error

// FillFileSize is the size of each fill file: small enough that the
// progress line moves, large enough that a big fill is a few hundred files.
const FillFileSize = 256 << 20

// CheckFill refuses, before anything is created, a fill that leaves no
// room for the run's files, by the filesystem's figures now.
func (p *Private) CheckFill() error {
	if !p.Fill.Set() {
		return nil
	}
	s, err := preflight.Stat(p.ParentPath)
	if err != nil {
		return result.Usagef("--fill", "cannot see the space of %s: %v", p.ParentPath, err)
	}
	return p.Fill.CheckRoom(s, p.ParentPath, p.Need, "--fill")
}

// Prepare opens and locks the parent directory, makes the private
// directory and writes the fill (telling progress how far it got), then
// records the space of the filesystem as the measurements will find it.
// A nil Private is nothing to prepare.
func (p *Private) Prepare(ctx context.Context, progress func(string), write FillWriter) error {
	if p == nil {
		return nil
	}
	// Locked as fs and copy lock theirs: two runs in one directory
	// measure each other.
	parent, err := OpenParent(p.Flag, p.ParentPath, true)
	if err != nil {
		return err
	}
	p.parent = parent
	if parent.NoLock != nil {
		p.Notes = append(p.Notes, fmt.Sprintf("no run lock on %s: %v", p.ParentPath, parent.NoLock))
	}
	run, err := Create(parent.Dir, p.Command)
	if err != nil {
		return result.Usagef(p.Flag, "cannot make a private directory in %s: %v", p.ParentPath, err)
	}
	p.Run = run
	p.Space = &result.BlockSpace{Path: p.ParentPath}
	if p.Fill.Set() {
		if err := p.fill(ctx, progress, write); err != nil {
			return err
		}
	}
	now, err := preflight.StatDir(run.Dir)
	if err != nil {
		return err
	}
	p.Space.TotalBytes, p.Space.UsedBytes, p.Space.AvailBytes = now.TotalBytes, now.UsedBytes(), now.AvailBytes
	return nil
}

// fill checks the room again through the directory's descriptor (the
// filesystem may have changed since the plan) and writes what the level
// misses, recording it in Space.Fill.
func (p *Private) fill(ctx context.Context, progress func(string), write FillWriter) error {
	before, err := preflight.StatDir(p.Run.Dir)
	if err != nil {
		return err
	}
	if err := p.Fill.CheckRoom(before, p.ParentPath, p.Need, "--fill"); err != nil {
		return fmt.Errorf("the free space of %s changed since the run was planned: %w", p.ParentPath, err)
	}
	f := &result.BlockFill{Request: p.Fill.Request, TargetUsedBytes: p.Fill.Target(before), UsedBeforeBytes: before.UsedBytes()}
	p.Space.Fill = f
	missing := p.Fill.Missing(before)
	if missing == 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("--fill %s: %s already has %s in use, at or above that level; nothing was written",
			p.Fill.Request, p.ParentPath, humanize.IBytes(before.UsedBytes())))
	}
	start := time.Now()
	err = p.writeFill(ctx, progress, write, int64(missing), f)
	f.FillNs = int64(time.Since(start))
	if err != nil {
		return fmt.Errorf("fill %s to %s: %w", p.ParentPath, p.Fill.Request, err)
	}
	return nil
}

// writeFill writes n bytes in fill files of FillFileSize, each synced by
// write.
func (p *Private) writeFill(ctx context.Context, progress func(string), write FillWriter, n int64, f *result.BlockFill) error {
	for k := 0; n > 0; k++ {
		size := min(n, FillFileSize)
		if p.fileSize > 0 {
			size = min(n, p.fileSize)
		}
		name := fmt.Sprintf("fill-%05d.bin", k)
		progress(fmt.Sprintf("filling %s to %s: %s of %s", p.ParentPath, p.Fill.Request,
			humanize.IBytes(uint64(f.WrittenBytes)), humanize.IBytes(uint64(f.WrittenBytes+n))))
		file, err := p.Run.Dir.Open(osio.Name(name), osio.ReadWrite|osio.Create, 0o600)
		if err != nil {
			return err
		}
		f.Files++
		err = write(ctx, file, k, size)
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

// Remove takes the private directory away with everything in it, gives
// the lock back and closes the parent. A nil Private is nothing to remove.
func (p *Private) Remove() error {
	if p == nil {
		return nil
	}
	var err error
	if p.Run != nil {
		err = p.Run.Remove()
		if err == nil && p.Space != nil && p.Space.Fill != nil {
			p.Space.Fill.Removed = true
		}
	}
	return errors.Join(err, p.parent.Close())
}

// FilePath is where a file the run creates lives in the private directory.
func (p *Private) FilePath(base string) string {
	return p.Run.Path + string(os.PathSeparator) + base
}
