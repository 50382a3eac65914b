package blockbench

import (
	"errors"
	"fmt"

	"github.com/clydebench/clyde/internal/offsets"
	"github.com/clydebench/clyde/result"
)

// The offset generators themselves (fio's random_distribution, strided
// zones, the random map) are internal/offsets; these are their names in
// blockbench's API, and the rules that need a Workload.

// DistKind is fio's random_distribution: how random offsets are spread
// over the region's blocks.
type DistKind = offsets.Kind

// The distributions. DistRandom (or "") is uniform, fio's default; the
// others mirror fio's lib/zipf.c, lib/gauss.c and io_u.c's zoned draws.
const (
	DistRandom   = offsets.Random
	DistZipf     = offsets.Zipf
	DistPareto   = offsets.Pareto
	DistNormal   = offsets.Normal
	DistZoned    = offsets.Zoned
	DistZonedAbs = offsets.ZonedAbs
)

// Defaults of fio's distributions (fio.h FIO_DEF_ZIPF, FIO_DEF_PARETO; a
// normal's deviation defaults to 0).
const (
	DefaultZipfTheta = offsets.DefaultZipfTheta
	DefaultParetoH   = offsets.DefaultParetoH
)

// Distribution is fio's random_distribution with its parameters
// (offsets.Distribution).
type Distribution = offsets.Distribution

// DistZone is one range of a zoned distribution (offsets.Zone).
type DistZone = offsets.Zone

// StridedZones is fio's zonemode=strided (offsets.StridedZones).
type StridedZones = offsets.StridedZones

// The worker's names for the generators it owns.
type (
	offsetDraw = offsets.Draw
	blockPerm  = offsets.Perm
	zoneWalk   = offsets.Walk
)

// validateDistribution holds the distribution's and the zones' rules that
// need no look at the target (DistributionError), at the flag they concern.
func (w *Workload) validateDistribution() error {
	if flag, msg := w.distributionProblem(); msg != "" {
		return result.Usagef(flag, "%s", msg)
	}
	return nil
}

// DistributionError says what is wrong with the workload's Distribution
// and Zones, or nil: the rules Validate applies, for a job-file reader to
// report at the option's line.
func (w *Workload) DistributionError() error {
	if _, msg := w.distributionProblem(); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// distributionProblem is fio's ranges (options.c
// str_random_distribution_cb, zone_split_ddir) and what clyde runs: the
// flag a problem concerns and what it is, or "".
func (w *Workload) distributionProblem() (flag, msg string) {
	if msg := w.randomDistributionProblem(); msg != "" {
		return "--random_distribution", msg
	}
	return w.stridedZonesProblem()
}

// randomDistributionProblem is what is wrong with random_distribution, or "".
func (w *Workload) randomDistributionProblem() string {
	d := w.Distribution
	if msg := d.Problem(); msg != "" {
		return msg
	}
	if !d.Uniform() && (w.Access != nil || w.Volume != nil) {
		return fmt.Sprintf("workload %s: %s shapes fio's rw modes on one target, not a workload's own pattern (an access specification) or a volume", w.Name, d.Kind)
	}
	return ""
}

// stridedZonesProblem is what is wrong with zonemode=strided's zones (and
// its flag), or "".
func (w *Workload) stridedZonesProblem() (flag, msg string) {
	d := w.Distribution
	z := w.Zones
	if flag, msg := z.Problem(); msg != "" {
		return flag, msg
	}
	switch {
	case z.Size == 0:
		return "", ""
	case w.RW == ReadWrite:
		// fio 3.33 moves only the current direction's position to a new
		// zone, and rw=rw then stays in the first zone: not what the job
		// file says.
		return "--zonemode", fmt.Sprintf("workload %s: strided zones with rw=rw (sequential reads and writes) are not supported; fio moves only one direction's position to the next zone", w.Name)
	case !d.Uniform() && d.Kind != DistZoned && d.Kind != DistZonedAbs:
		// fio draws zipf, pareto and normal over the whole file and adds
		// the zone's start, so the job ends at the first draw past the
		// end of the file.
		return "--zonemode", fmt.Sprintf("workload %s: random_distribution=%s with strided zones: fio draws it over the whole file, not the zone, and ends the job early; give zoned or random", w.Name, d.Kind)
	case w.Access != nil || w.Volume != nil:
		return "--zonemode", fmt.Sprintf("workload %s: strided zones apply to fio's rw modes on one target", w.Name)
	}
	if r := z.RangeIn(w.Size); r < w.BS {
		return "--zonerange", fmt.Sprintf("%d is smaller than bs %d; a zone holds at least one block", r, w.BS)
	}
	return "", ""
}

// checkZones holds the rules that need the resolved region: zoned_abs's
// ranges fit in what a draw spans (fio fails the job at the first draw
// otherwise: "zoned_abs sizes exceed file size"), and no I/O would go to
// the part of a last zone past the region's end: fio ends its job at the
// first offset past the end of the file (8 MiB of a 10m job with
// zonesize=3m zoneskip=1m), so clyde refuses what fio would cut short
// rather than run something else. A pass that ends before it gets there
// runs (fio reads all of size=10m zonesize=4m). The note says where the
// zones differ from fio's: clyde walks them within the region, fio on to
// the end of a larger file.
func (w *workload) checkZones() (note string, err error) {
	span := w.Size
	if w.Zones.Size > 0 {
		span = w.Zones.RangeIn(w.Size)
		if span > w.Size {
			return "", result.Usagef("--zonerange", "%d is larger than the region of %d bytes", span, w.Size)
		}
		if w.target != nil && w.target.Size > w.Offset+w.Size {
			note = fmt.Sprintf("job %s: strided zones ran within offset..offset+size (%d bytes); fio walks them on to the end of the file (%d bytes) before it wraps", w.Name, w.Size, w.target.Size)
		}
		if reach, cut := w.lastZoneReach(span); reach > cut {
			return "", result.Usagef("--zonesize", "workload %s: the last zone, at +%d, has %d of its %d bytes in the region, and the job would go past them (fio ends its job there); give a size that holds whole zones (a multiple of zonerange+zoneskip)",
				w.Name, w.Size-cut, cut, span)
		}
	}
	if w.Distribution.Kind == DistZonedAbs {
		for dir, zs := range w.Distribution.Zones {
			var sum int64
			for _, z := range zs {
				sum += z.Size
			}
			if bs, blocks := w.drawGrid(dir, span); sum/bs > blocks {
				return "", result.Usagef("--random_distribution", "zoned_abs: the %s ranges add up to %d bytes, more than the %d a draw spans (fio: zoned_abs sizes exceed file size)", dirNames[dir], sum, span)
			}
		}
	}
	return note, nil
}

// lastZoneReach is how far into the last strided zone the job's I/O
// goes, and how much of that zone is in the region (reach 0 when the zone
// is whole or never visited). Every zone gets zonesize bytes a visit, in
// whole blocks; a sequential visit covers at most zonerange, a random one
// may draw any block of it.
func (w *workload) lastZoneReach(span int64) (reach, cut int64) {
	stride := span + w.Zones.Skip
	zones := (w.Size-1)/stride + 1
	cut = w.Size - (zones-1)*stride
	if cut >= span {
		return 0, cut
	}
	visit := (w.Zones.Size + w.BS - 1) / w.BS * w.BS
	reach = visit
	if !w.TimeBased {
		budget := w.Size / w.BS * w.BS * int64(max(1, w.Loops))
		before := (zones - 1) * visit
		switch {
		case budget <= before:
			return 0, cut // the pass ends before the last zone
		case budget-before < visit:
			reach = budget - before // the pass ends in it, on its first visit
		}
	}
	if w.RW.Random() {
		return span, cut
	}
	return min(reach, span), cut
}

// stepZone is fio's setup_strided_zone_mode, run before every I/O's
// offset: past zonesize bytes in a zone it moves zonerange+zoneskip on
// (back to the region's start past its end), and a sequential position
// past the zone's end goes back to the zone's start; the random map
// starts over every zonerange bytes.
func (w *worker) stepZone(dir int) {
	if w.zone.Step(&w.pos[dir], w.spec.BS) && w.perm != nil {
		w.perm.Reseed(w.rng)
	}
}

// setupDraws prepares the distribution and the zones of a worker: the
// blocks a random draw spans (the region's or a zone's), the map over
// them when fio keeps one, and the distribution's draw.
func (w *worker) setupDraws() {
	spec := w.spec
	span := w.nBlocks
	if z := spec.Zones; z.Size > 0 {
		r := z.RangeIn(spec.Size)
		w.zone = offsets.NewWalk(z, spec.Offset, spec.Size, w.regionEnd)
		w.zoned = true
		span = uint64(r / spec.BS)
	}
	w.drawBlocks = span
	if !w.random {
		return
	}
	if spec.Distribution.Uniform() {
		if spec.RandomMap && spec.vmap == nil && span > 1 {
			w.perm = offsets.NewPerm(span, w.rng)
		}
		return
	}
	// fio forces norandommap=1 for every distribution but random.
	w.dist = offsets.NewDraw(spec.Distribution, span, uint64(spec.BS), newRand(spec.Seed^0xd157, w.index+1))
}

// randomBlock is the block of the next random offset, from the start of
// the region or the zone.
func (w *worker) randomBlock(dir int) uint64 {
	switch {
	case w.dist != nil:
		return w.dist.Next(dir)
	case w.perm != nil:
		return w.perm.Next()
	}
	return below(w.rng, w.drawBlocks)
}

// zonedOffset is nextOffset within fio's strided zones.
func (w *worker) zonedOffset(dir int) int64 {
	w.stepZone(dir)
	if w.random {
		return w.zone.Start() + int64(w.randomBlock(dir))*w.spec.BS
	}
	off := w.pos[dir]
	w.pos[dir] = off + w.spec.BS
	return off
}
