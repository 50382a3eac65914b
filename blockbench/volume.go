package blockbench

import (
	"fmt"
	"io"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// Volume is several targets seen as one address space: a workload with a
// Volume works on that space, and each I/O goes to the member and offset
// the Layout maps it to. The members must exist (a volume is made of what
// is there) and pass the same safety rules as any target (resolveTarget);
// no I/O crosses the end of a member.
type Volume struct {
	Filenames []string
	// Layout lays the address space over the members; a volume needs one.
	// Package orion's -simulate concat puts them one after the other, its
	// raid0 stripes them.
	Layout VolumeLayout
}

// VolumeLayout lays a volume's address space over its members.
type VolumeLayout interface {
	// Check refuses a block size the layout cannot place whole on one
	// member, before anything is touched.
	Check(bs int64) error
	// Size is the address space in bytes over members of these sizes.
	Size(members []int64) int64
	// Blocks lays blocks of bs bytes over members of these sizes.
	Blocks(members []int64, bs int64) BlockLayout
}

// BlockLayout places the blocks of one size of a volume. Its methods run
// once per I/O and must not allocate.
type BlockLayout interface {
	// First is the first whole block at or after byte off of the address
	// space.
	First(off int64) int64
	// Locate is the member block b is on and its byte offset there.
	Locate(b int64) (member int, off int64)
}

// validate holds the rules of a volume that need no look at its targets.
func (v *Volume) validate(w *Workload) error {
	if len(v.Filenames) == 0 {
		return result.Usagef("--filename", "a volume needs at least one file or device")
	}
	seen := map[string]bool{}
	for _, f := range v.Filenames {
		if f == "" {
			return result.Usagef("--filename", "a volume member has no name")
		}
		if seen[f] {
			return result.Usagef("--filename", "%s is listed twice in one volume", f)
		}
		seen[f] = true
	}
	if v.Layout == nil {
		return fmt.Errorf("job %s: a volume needs a Layout to place its blocks on its members", w.Name)
	}
	if err := v.Layout.Check(w.BS); err != nil {
		return err
	}
	if w.Fsync > 0 {
		return result.Usagef("--fsync", "not supported on a volume of several targets")
	}
	return nil
}

// volumeMap is a volume as one workload sees it: its block size, the
// layout's blocks, and the block range of the workload's region [b0, b1).
type volumeMap struct {
	blocks BlockLayout
	bs     int64
	b0, b1 int64
}

// memberSizes are the sizes of a volume's resolved members.
func memberSizes(ts []*target) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t.Size
	}
	return out
}

func newVolumeMap(v *Volume, ts []*target, bs int64, reg region) *volumeMap {
	m := &volumeMap{blocks: v.Layout.Blocks(memberSizes(ts), bs), bs: bs}
	m.b0, m.b1 = m.blocks.First(reg.offset), m.blocks.First(reg.offset+reg.size)
	return m
}

// volumePattern is fioPattern on a volume: a block of the region drawn at
// random or taken in sequence, mapped to its target. It records the target
// in w.lun for the engine.
type volumePattern struct {
	m   *volumeMap
	pos [2]int64
}

func (p *volumePattern) next(w *worker) (int, int64, int) {
	dir := w.pickDir()
	var b int64
	if w.random {
		b = p.m.b0 + int64(below(w.rng, uint64(p.m.b1-p.m.b0)))
	} else {
		b = p.pos[dir]
		if p.pos[dir]++; p.pos[dir] >= p.m.b1 {
			p.pos[dir] = p.m.b0
		}
	}
	lun, off := p.m.blocks.Locate(b)
	w.lun = lun
	return dir, off, int(p.m.bs)
}

func (p *volumePattern) maxSize(*worker) int { return int(p.m.bs) }

// resolveVolume finds (or reuses) each member's target; every member must
// exist.
func resolveVolume(w Workload, byName map[string]*target, targets *[]*target, warn io.Writer) ([]*target, error) {
	var ts []*target
	for _, f := range w.Volume.Filenames {
		t := byName[f]
		if t == nil {
			var err error
			if t, err = resolveTarget(f, warn); err != nil {
				return nil, err
			}
			if !t.Exists {
				return nil, result.Usagef("--filename", "%s does not exist; a volume is made of existing files or devices", f)
			}
			byName[f] = t
			*targets = append(*targets, t)
			t.fill, t.seed = w.Buffer, w.Seed
			t.readFirst = w.RW.Reads()
		}
		t.Writes = t.Writes || w.RW.Writes()
		ts = append(ts, t)
	}
	return ts, nil
}

// volumeRegion is the workload's byte range on its volume, as target.region
// is on a single target.
func (w *workload) volumeRegion() (region, error) {
	size := w.Volume.Layout.Size(memberSizes(w.vol))
	r := region{offset: w.Offset, size: w.Size}
	if r.offset >= size {
		return r, result.Usagef("--offset", "%d is at or past the end of the volume (%d bytes)", r.offset, size)
	}
	if r.size == 0 {
		r.size = size - r.offset
	}
	if r.size > size-r.offset {
		return r, result.Usagef("--size", "offset %d + size %d runs past the end of the volume (%d bytes)", r.offset, r.size, size)
	}
	return r, nil
}

// useVolume makes a new worker draw its I/O from the workload's volume.
func (w *worker) useVolume() {
	m := w.spec.vmap
	w.pattern = &volumePattern{m: m, pos: [2]int64{m.b0, m.b0}}
	w.nBlocks = uint64(m.b1 - m.b0)
}

// openVolume opens the other members for a worker whose first descriptor
// is h; w.hs[i] is member i.
func (w *worker) openVolume(h osio.File) error {
	w.hs = append(w.hs[:0], h)
	for _, t := range w.spec.vol[1:] {
		f, err := t.OpenWorker(w.spec.RW.Writes(), w.spec.Direct, engineOpenFlags(w.spec.engine))
		if err != nil {
			return fmt.Errorf("open %s for worker %d: %w", t.Resolved, w.index, err)
		}
		w.hs = append(w.hs, f)
		if w.spec.fileRegs != nil && w.spec.FadviseHint && !w.spec.Direct {
			// fio advises each file of a set as it opens it.
			if err := osio.AdviseAccess(f, w.spec.RW.Random()); err != nil {
				return fmt.Errorf("fadvise_hint on %s for worker %d: %w", t.Given, w.index, err)
			}
		}
	}
	return nil
}
