package blockbench

import (
	"context"
	"io"
	"math"

	"github.com/clydebench/clyde/internal/blocktarget"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// fillChunk is the write size used to fill a created file.
const fillChunk = blocktarget.FillChunk

// target is one file or device the workloads of a run work on: its life
// on disk (resolving, admitting, creating, filling, opening for workers,
// removing) is internal/blocktarget's; what the planner decided about it is
// here. fill and seed are what a file clyde creates is filled with (its
// first workload's buffer); readFirst is true when the first workload on
// the target reads it: an existing file must then hold data on the device
// (checkBacked).
type target struct {
	*blocktarget.Target
	fill      Buffer
	seed      uint64
	readFirst bool
}

// disklessKey is the one diskless target of a plan among its targets by
// name: no file name can be empty.
const disklessKey = ""

// resolveDiskless is the target of a workload that needs none
// (Workload.Diskless): whatever filename says, fio's null engine opens no
// file, and neither does clyde.
func resolveDiskless(_ string, warn io.Writer) (*target, error) {
	t := &target{Target: blocktarget.NewDiskless(string(EngineNull), warn)}
	t.Note("ioengine null: no file was resolved, opened, created or admitted; every I/O completed at once, as in fio's null engine, so the figures measure clyde's own loop")
	return t, nil
}

// resolveTarget is blocktarget.Resolve: a file or device as the path
// rule finds it.
func resolveTarget(filename string, warn io.Writer) (*target, error) {
	bt, err := blocktarget.Resolve(filename, warn)
	if bt == nil {
		return nil, err
	}
	return &target{Target: bt}, err
}

// resolvePrivate is blocktarget.ResolvePrivate: a file made in the plan's
// private run directory.
func resolvePrivate(filename string, warn io.Writer) (*target, error) {
	bt, err := blocktarget.ResolvePrivate(filename, warn)
	if err != nil {
		return nil, err
	}
	return &target{Target: bt}, nil
}

// checkAlign holds w to the sector size of the target
// (blocktarget.Target.CheckAlign).
func (t *target) checkAlign(w *workload) error {
	return t.CheckAlign(blocktarget.Access{Direct: w.Direct, Offset: w.Offset, SizesMultipleOf: w.sizesMultipleOf, SizesText: w.sizesText})
}

// region is the byte range a workload uses after defaults are resolved.
type region struct{ offset, size int64 }

// sizeNew sizes a file clyde is to create so that it holds every
// workload's region: offset plus size, DefaultSize where a workload leaves
// the size open. sizeGiven refuses an open size: the user said --size 0,
// which means the rest of an existing target. The workloads are taken in
// the plan's order, as fio's setup_files lays out a job's file before the
// next job's is set up: a workload's shares of the file (size=N%,
// offset=N%; region.go) are of the file as the workloads before it laid
// it out (shareBase), nothing for the first.
func (t *target) sizeNew(ws []*workload, sizeGiven bool) error {
	for _, w := range ws {
		if r, ok := w.fileRegionOn(t); ok {
			t.Size = max(t.Size, r.Offset+r.Size) // a file set's file (files.go)
			continue
		}
		w.shareBase = t.Size
		if w.Region.SizePercent > 0 && t.Size == 0 {
			// fio: "you need to specify size=" (setup_files: a share of
			// a file of no size).
			return result.Usagef("--size", "job %s: %d%% of %s, which does not exist yet and no job before it lays out: give the size of the file to create, such as 1g",
				w.Name, w.Region.SizePercent, t.Given)
		}
		off, size := w.place(t.Size)
		if size == 0 {
			if sizeGiven {
				return result.Usagef("--size", "0 means the rest of an existing target, and %s does not exist yet; "+
					"give the size of the file to create, such as 1g", t.Given)
			}
			size = DefaultSize
		}
		if off > math.MaxInt64-size {
			return result.Usagef("--offset", "offset %d + size %d is past the largest file offset (%d)", off, size, int64(math.MaxInt64))
		}
		t.Size = max(t.Size, off+size)
	}
	return nil
}

// createOnOpen decides how a file clyde creates starts when its workloads
// have CreateOnOpen (fio's create_on_open): fio then lays nothing out
// before the run and the job's own writes make the file. clyde creates it
// at its size, sparse, so that its marker's size holds, and fills nothing
// when every workload on it has the option. A workload that reads it is
// refused: fio reads an empty file and stops at its first read.
func (t *target) createOnOpen(ws []*workload) error {
	all := len(ws) > 0
	for _, w := range ws {
		all = all && w.CreateOnOpen
		if w.CreateOnOpen && w.RW.Reads() {
			return result.Usagef("--create_on_open", "job %s reads %s, which does not exist: with create_on_open fio lays out no data and stops at its first read; drop create_on_open or give an existing file", w.Name, t.Given)
		}
	}
	t.NoFill = all
	return nil
}

// region resolves a workload's byte range on the target.
func (t *target) region(w *workload) (region, error) {
	var r region
	// fio's shares and clone increments (region.go) are of the target as
	// it is before the run; of a file the run creates, as the workloads
	// before this one lay it out (sizeNew).
	before := t.Size
	if !t.Exists {
		before = w.shareBase
	}
	r.offset, r.size = w.place(before)
	if t.Diskless {
		// The region is size= alone (Workload.validate requires it).
		t.Size = max(t.Size, r.offset+r.size)
		return r, nil
	}
	if !t.Exists {
		if r.size == 0 {
			r.size = t.Size - r.offset
		}
		return r, nil
	}
	if r.offset >= t.Size {
		return r, result.Usagef("--offset", "%d is at or past the end of %s (%d bytes)", r.offset, t.Resolved, t.Size)
	}
	if r.size == 0 {
		r.size = t.Size - r.offset
	}
	if r.size > t.Size-r.offset {
		return r, result.Usagef("--size", "offset %d + size %d runs past the end of %s (%d bytes); give a smaller --size or a new path",
			r.offset, r.size, t.Resolved, t.Size)
	}
	return r, nil
}

// prepare is blocktarget.Target.Prepare with a file clyde creates filled
// with buf's pattern, fresh for every chunk, from seed.
func (t *target) prepare(ctx context.Context, destroy bool, buf Buffer, seed uint64) error {
	return t.Prepare(ctx, destroy, chunkFill(buf, seed))
}

// chunkFill fills each chunk it is given with the buffer pattern, all
// from one generator seeded with seed, so that no two chunks are alike.
func chunkFill(spec Buffer, seed uint64) func([]byte) {
	rng := newRand(seed, 0)
	return func(b []byte) { fillBuffer(b, spec, rng) }
}

// diskStatsBefore snapshots the disks under the open targets, for fio's
// disk_util (sysinfo.DiskStats).
func diskStatsBefore(targets []*target) *sysinfo.DiskSnapshot {
	var ds []sysinfo.DiskTarget
	for _, t := range targets {
		if t.File.Valid() {
			ds = append(ds, sysinfo.DiskTarget{Fd: t.File.Fd(), Device: t.Device})
		}
	}
	return sysinfo.DiskStats(ds)
}

func (t *target) describe() result.BlockTarget {
	kind := "file"
	switch {
	case t.Device:
		kind = "block_device"
	case t.Diskless:
		return result.BlockTarget{Path: t.Given, Kind: string(EngineNull), SizeBytes: t.Size}
	}
	return result.BlockTarget{Path: t.Given, ResolvedPath: t.Resolved, Kind: kind, Created: t.Created, SizeBytes: t.Size, FillNs: t.FillNs}
}

// directCacheNote is blocktarget.Target.DirectCacheNote for the first
// direct=1 workload on its target.
func (w *workload) directCacheNote(allowed bool) string {
	if !w.Direct || w.target == nil {
		return ""
	}
	return w.target.DirectCacheNote(w.Name, allowed)
}
