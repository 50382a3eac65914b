package blockbench

import (
	"fmt"
	"io"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// Volume is several targets seen as one address space, the way ORION's
// -simulate lays out the LUNs of a .lun file: concatenated one after the
// other (Stripe 0), or striped RAID-0 fashion in Stripe-byte units across
// all of them. A workload with a Volume works on that address space; each
// I/O goes to the target and offset the layout maps it to. The targets must
// exist (a volume is made of what is there) and pass the same safety rules
// as any target; no I/O crosses a stripe or the end of a target.
type Volume struct {
	Filenames []string
	Stripe    int64
}

// validate holds the rules of a volume that need no look at its targets.
func (v *Volume) validate(w *Workload) error {
	if len(v.Filenames) == 0 {
		return result.Usagef("-testname", "a volume needs at least one file or device")
	}
	seen := map[string]bool{}
	for _, f := range v.Filenames {
		if f == "" {
			return result.Usagef("-testname", "a volume member has no name")
		}
		if seen[f] {
			return result.Usagef("-testname", "%s is listed twice in one volume", f)
		}
		seen[f] = true
	}
	switch {
	case v.Stripe < 0:
		return result.Usagef("-simulate", "stripe %d is negative", v.Stripe)
	case v.Stripe > 0 && v.Stripe%w.BS != 0:
		return result.Usagef("--bs", "%d does not divide the stripe of %d bytes, so I/Os would cross stripes; give a power of two", w.BS, v.Stripe)
	case w.Fsync > 0:
		return result.Usagef("--fsync", "not supported on a volume of several targets")
	}
	return nil
}

// volumeMap is a volume as one workload sees it: its block size, the
// layout, and the block range of the workload's region. Blocks are numbered
// over the whole volume; in RAID-0 each stripe holds stripe/bs of them, in a
// concatenation each target floor(size/bs).
type volumeMap struct {
	targets []*target
	bs      int64
	stripe  int64   // 0: concatenated
	starts  []int64 // concatenated: first block of each target, then the total
	b0, b1  int64   // the region's blocks [b0, b1)
}

// size is the volume's address space in bytes: every target's whole size
// concatenated, or for RAID-0 as many whole stripes on each as the smallest
// target holds.
func volumeSize(ts []*target, stripe int64) int64 {
	var total, smallest int64
	for i, t := range ts {
		total += t.size
		if i == 0 || t.size < smallest {
			smallest = t.size
		}
	}
	if stripe > 0 {
		return int64(len(ts)) * (smallest / stripe * stripe)
	}
	return total
}

func newVolumeMap(ts []*target, stripe, bs int64, reg region) *volumeMap {
	m := &volumeMap{targets: ts, bs: bs, stripe: stripe}
	if stripe == 0 {
		m.starts = make([]int64, len(ts)+1)
		for i, t := range ts {
			m.starts[i+1] = m.starts[i] + t.size/bs
		}
	}
	m.b0, m.b1 = m.blockAt(reg.offset), m.blockAt(reg.offset+reg.size)
	return m
}

// blockAt is the first whole block at or after byte off of the volume.
func (m *volumeMap) blockAt(off int64) int64 {
	if m.stripe > 0 {
		per := m.stripe / m.bs
		return off/m.stripe*per + min((off%m.stripe+m.bs-1)/m.bs, per)
	}
	var base int64
	for i, t := range m.targets {
		if off < base+t.size || i == len(m.targets)-1 {
			return m.starts[i] + min((off-base+m.bs-1)/m.bs, m.starts[i+1]-m.starts[i])
		}
		base += t.size
	}
	return 0
}

// locate maps block b to its target and byte offset there; it does not
// allocate (it runs once per I/O).
func (m *volumeMap) locate(b int64) (int, int64) {
	if m.stripe > 0 {
		per := m.stripe / m.bs
		s := b / per
		n := int64(len(m.targets))
		return int(s % n), s/n*m.stripe + b%per*m.bs
	}
	i := 0
	for i < len(m.targets)-1 && b >= m.starts[i+1] {
		i++
	}
	return i, (b - m.starts[i]) * m.bs
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
	lun, off := p.m.locate(b)
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
			if !t.exists {
				return nil, result.Usagef("-testname", "%s does not exist; a volume is made of existing files or devices", f)
			}
			byName[f] = t
			*targets = append(*targets, t)
			t.fill, t.seed = w.Buffer, w.Seed
			t.readFirst = w.RW.Reads()
		}
		t.writes = t.writes || w.RW.Writes()
		ts = append(ts, t)
	}
	return ts, nil
}

// volumeRegion is the workload's byte range on its volume, as target.region
// is on a single target.
func (w *workload) volumeRegion() (region, error) {
	size := volumeSize(w.vol, w.Volume.Stripe)
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
		f, err := t.openWorker(w.spec.RW.Writes(), w.spec.Direct, engineOpenFlags(w.spec.engine))
		if err != nil {
			return fmt.Errorf("open %s for worker %d: %w", t.resolved, w.index, err)
		}
		w.hs = append(w.hs, f)
	}
	return nil
}
