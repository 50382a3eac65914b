package blockbench

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/clydebench/clyde/result"
)

// DistKind is fio's random_distribution: how random offsets are spread
// over the region's blocks.
type DistKind string

// The distributions. DistRandom (or "") is uniform, fio's default; the
// others mirror fio's lib/zipf.c, lib/gauss.c and io_u.c's zoned draws.
const (
	DistRandom   DistKind = "random"
	DistZipf     DistKind = "zipf"
	DistPareto   DistKind = "pareto"
	DistNormal   DistKind = "normal"
	DistZoned    DistKind = "zoned"
	DistZonedAbs DistKind = "zoned_abs"
)

// Defaults of fio's distributions (fio.h FIO_DEF_ZIPF, FIO_DEF_PARETO; a
// normal's deviation defaults to 0).
const (
	DefaultZipfTheta = 1.1
	DefaultParetoH   = 0.2
)

// Distribution is fio's random_distribution with its parameters. It only
// shapes random offsets: fio never asks it for sequential ones. Any kind
// but random turns the random map off, as fio forces norandommap=1 for
// them (init.c: "a non-uniform random distribution excludes usage of a
// random map").
type Distribution struct {
	Kind DistKind
	// Param is zipf's theta (any above 0 but 1), pareto's h (0 < h < 1)
	// or normal's deviation in percent of the region (0 <= dev < 100).
	Param float64
	// Center, when HasCenter, is fio's optional ":center" (0..1): where
	// the ranks start instead of an offset drawn at random (zipf,
	// pareto) or the region's middle (normal).
	Center    float64
	HasCenter bool
	// Zones are zoned's (access percent, size percent) or zoned_abs's
	// (access percent, size in bytes) ranges, for reads [0] and writes
	// [1]; a direction with none draws uniformly, as fio's.
	Zones [2][]DistZone
}

// DistZone is one range of a zoned distribution: AccessPct of the I/Os go
// to the next SizePct percent (zoned) or Size bytes (zoned_abs) of the
// region, after the ranges before it.
type DistZone struct {
	AccessPct int
	SizePct   int
	Size      int64
}

// StridedZones is fio's zonemode=strided: I/O stays in a zone of Range
// bytes (0: Size) until Size bytes were issued there, then moves Range+Skip
// on, back to the region's start past its end (io_u.c:
// setup_strided_zone_mode). Size 0 is no zones (zonemode=none).
type StridedZones struct {
	Size, Range, Skip int64
}

// Uniform says d draws every offset with the same chance (fio's
// random_distribution=random).
func (d Distribution) Uniform() bool { return d.Kind == "" || d.Kind == DistRandom }

// RangeIn is the zone range of a region of size bytes: Range, or Size
// when Range is 0.
func (z StridedZones) RangeIn(size int64) int64 {
	if z.Range > 0 {
		return z.Range
	}
	if z.Size > 0 {
		return z.Size // fio: zonerange defaults to zonesize
	}
	return size
}

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
	switch d.Kind {
	case "", DistRandom:
	case DistZipf:
		// fio refuses only 1; clyde refuses a theta of 0 or below too,
		// which is no zipf (0 is uniform, below it the pole moves to
		// the other end).
		if !(d.Param > 0) || d.Param == 1 || math.IsInf(d.Param, 0) {
			return fmt.Sprintf("zipf:%g: give a theta above 0 other than 1 (fio's default 1.1)", d.Param)
		}
	case DistPareto:
		if !(d.Param > 0 && d.Param < 1) {
			return fmt.Sprintf("pareto:%g: give an h with 0 < h < 1 (fio's default 0.2)", d.Param)
		}
	case DistNormal:
		if !(d.Param >= 0 && d.Param < 100) {
			return fmt.Sprintf("normal:%g: give a deviation with 0 <= dev < 100 (percent of the region)", d.Param)
		}
	case DistZoned, DistZonedAbs:
		for dir, zs := range d.Zones {
			if msg := zoneSplitProblem(d.Kind, dirNames[dir], zs); msg != "" {
				return msg
			}
		}
	default:
		return fmt.Sprintf("%q: give random, zipf, pareto, normal, zoned or zoned_abs", d.Kind)
	}
	if d.HasCenter && !(d.Center >= 0 && d.Center <= 1) {
		return fmt.Sprintf("center %g: give 0 <= center <= 1", d.Center)
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
	switch {
	case z.Size == 0 && (z.Range != 0 || z.Skip != 0):
		return "--zonesize", "zonerange and zoneskip need zonemode=strided with a zonesize"
	case z.Size < 0 || z.Range < 0 || z.Skip < 0:
		return "--zonesize", "a zone size, range or skip is negative"
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

// zoneSplitProblem is fio's zone_split_ddir: the access percentages add
// up to 100, the size percentages to at most 100.
func zoneSplitProblem(k DistKind, dir string, zs []DistZone) string {
	if len(zs) == 0 {
		return ""
	}
	if len(zs) > maxZoneSplits {
		return fmt.Sprintf("%s: %d ranges for %ss; fio takes at most %d", k, len(zs), dir, maxZoneSplits)
	}
	access, size := 0, 0
	for _, z := range zs {
		if z.AccessPct < 0 || z.AccessPct > 100 || z.SizePct < 0 || z.SizePct > 100 || z.Size < 0 {
			return fmt.Sprintf("%s: a range of %d%%/%d%% is outside 0..100", k, z.AccessPct, z.SizePct)
		}
		access += z.AccessPct
		size += z.SizePct
	}
	if access != 100 {
		return fmt.Sprintf("%s: the access percentages of the %s ranges add up to %d; fio needs 100", k, dir, access)
	}
	if k == DistZoned && size > 100 {
		return fmt.Sprintf("zoned: the size percentages of the %s ranges add up to %d, more than 100", dir, size)
	}
	return ""
}

// maxZoneSplits is fio's ZONESPLIT_MAX.
const maxZoneSplits = 256

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
		if w.target != nil && w.target.size > w.Offset+w.Size {
			note = fmt.Sprintf("job %s: strided zones ran within offset..offset+size (%d bytes); fio walks them on to the end of the file (%d bytes) before it wraps", w.Name, w.Size, w.target.size)
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

// offsetDraw draws the block of a random offset for one worker, from the
// workload's distribution, over n blocks (the region's, or a strided
// zone's). It is set up in newWorker; next allocates nothing.
type offsetDraw struct {
	kind DistKind
	rng  *rand.PCG
	n    uint64
	// zipf (lib/zipf.c zipf_init, zipf_next): theta, zetan over the first
	// min(n, 10M) ranks, and the constants of its inverse that zipf_next
	// computes on every call (alpha, eta from zeta2, 0.5^theta).
	theta, zetan, alpha, eta, half float64
	// pareto (pareto_init): pareto_pow = log(h)/log(1-h).
	paretoPow float64
	// randOff is where rank 0 lands: drawn, or n*center (zipf,
	// pareto); n*(center-0.5) as fio's unsigned int (normal).
	randOff uint64
	// stddev is normal's jitter in blocks (lib/gauss.c gauss_init).
	stddev uint64
	// zones are zoned's tables for reads and writes: 100 entries each,
	// one per access percent, of the start and end of the range drawn
	// (percent for zoned, bytes for zoned_abs), as fio's
	// zone_state_index (zone-dist.c).
	zones [2]*[100]zoneSpan
}

type zoneSpan struct{ lo, hi uint64 }

// zipfMaxGen is fio's ZIPF_MAX_GEN: zetan sums at most 10M ranks.
const zipfMaxGen = 10_000_000

// goldenRatio64 is fio's GOLDEN_RATIO_64: __hash_u64 multiplies a rank by
// it, scattering neighbouring ranks over the blocks.
const goldenRatio64 = 0x61C8864680B583EB

// frand32Max is fio's FRAND32_MAX: its 32-bit generator's largest value.
const frand32Max = math.MaxUint32

// zetaCache keeps zipf's zetan by (n, theta): summing 10M powers takes a
// fraction of a second, once per workload rather than per worker.
var zetaCache = struct {
	sync.Mutex
	m map[[2]uint64]float64
}{m: map[[2]uint64]float64{}}

// zipfZetan is fio's zipf_update: the sum of 1/i^theta over the first
// min(n, 10M) ranks.
func zipfZetan(n uint64, theta float64) float64 {
	key := [2]uint64{n, math.Float64bits(theta)}
	zetaCache.Lock()
	defer zetaCache.Unlock()
	if z, ok := zetaCache.m[key]; ok {
		return z
	}
	var z float64
	for i := uint64(0); i < min(n, zipfMaxGen); i++ {
		z += math.Pow(1/float64(i+1), theta)
	}
	zetaCache.m[key] = z
	return z
}

// newOffsetDraw is the draw of one worker over n blocks, or nil for a
// uniform distribution (the worker's own draw, with or without the map).
func newOffsetDraw(d Distribution, n, bs uint64, rng *rand.PCG) *offsetDraw {
	if d.Uniform() || n == 0 {
		return nil
	}
	o := &offsetDraw{kind: d.Kind, rng: rng, n: n}
	switch d.Kind {
	case DistZipf, DistPareto:
		// shared_rand_init: rank 0 lands on a drawn block, or at center.
		o.randOff = uint64(o.u32())
		if d.HasCenter {
			o.randOff = uint64(float64(n) * d.Center)
		}
		if d.Kind == DistPareto {
			o.paretoPow = math.Log(d.Param) / math.Log(1-d.Param)
			break
		}
		o.theta = d.Param
		zeta2 := math.Pow(1, o.theta) + math.Pow(0.5, o.theta)
		o.zetan = zipfZetan(n, o.theta)
		o.alpha = 1 / (1 - o.theta)
		o.eta = (1 - math.Pow(2/float64(n), 1-o.theta)) / (1 - zeta2/o.zetan)
		o.half = math.Pow(0.5, o.theta)
	case DistNormal:
		if d.Param != 0 {
			o.stddev = uint64(uint32(math.Ceil(float64(n) * d.Param / 100)))
			o.stddev = min(o.stddev, n/2)
		}
		if d.HasCenter {
			// gauss_init: rand_off is an unsigned int, so a center
			// below 0.5 wraps, as fio's conversion does on x86-64.
			o.randOff = uint64(uint32(int64(float64(n) * (d.Center - 0.5))))
		}
	case DistZoned, DistZonedAbs:
		for dir, zs := range d.Zones {
			if len(zs) > 0 {
				o.zones[dir] = zoneIndex(d.Kind, zs, bs)
			}
		}
	}
	return o
}

// zoneIndex is fio's __td_zone_gen_index: for each access percent 1..100
// the range it draws from. zoned_abs's bounds are in blocks.
func zoneIndex(k DistKind, zs []DistZone, bs uint64) *[100]zoneSpan {
	t := new([100]zoneSpan)
	aprev := 0
	var sprev uint64
	for _, z := range zs {
		size := uint64(z.SizePct)
		if k == DistZonedAbs {
			size = uint64(z.Size)
		}
		for j := aprev; j < aprev+z.AccessPct && j < 100; j++ {
			t[j] = zoneSpan{lo: sprev, hi: sprev + size}
		}
		aprev += z.AccessPct
		sprev += size
	}
	if k == DistZonedAbs {
		for i := range t {
			t[i].lo, t[i].hi = t[i].lo/bs, t[i].hi/bs
		}
	}
	return t
}

// u32 is one draw of fio's 32-bit generator (__rand).
func (o *offsetDraw) u32() uint32 { return uint32(o.rng.Uint64() >> 32) }

// next is the block of the next random offset for direction dir.
func (o *offsetDraw) next(dir int) uint64 {
	switch o.kind {
	case DistZipf:
		return o.scatter(o.zipfRank())
	case DistPareto:
		return o.scatter(o.paretoRank())
	case DistNormal:
		return o.scatter(o.gaussValue())
	}
	return o.zoned(dir)
}

// scatter is fio's last step of zipf_next, pareto_next and gauss_next:
// __hash_u64 (a multiply by GOLDEN_RATIO_64, modulo 2^64) spreads the
// ranks over the region, rand_off shifts them, modulo the blocks.
func (o *offsetDraw) scatter(v uint64) uint64 { return (v*goldenRatio64 + o.randOff) % o.n }

// unhashed is fio's zipf_next, pareto_next or gauss_next with the hash
// disabled (zipf_disable_hash, gauss_disable_hash), as file_service_type
// draws a file: the rank shifted by rand_off, modulo the ranges.
func (o *offsetDraw) unhashed() uint64 {
	var v uint64
	switch o.kind {
	case DistZipf:
		v = o.zipfRank()
	case DistPareto:
		v = o.paretoRank()
	default:
		v = o.gaussValue()
	}
	return (v + o.randOff) % o.n
}

// zipfRank is fio's zipf_next up to its hash: the rank (0 hottest) from
// the approximate inverse of the zipf distribution of Gray et al.,
// "Quickly generating billion-record synthetic databases".
func (o *offsetDraw) zipfRank() uint64 {
	u := float64(o.u32()) / frand32Max
	z := u * o.zetan
	var val uint64
	switch {
	case z < 1:
		val = 1
	case z < 1+o.half:
		val = 2
	default:
		val = 1 + uint64(float64(o.n)*math.Pow(o.eta*u-o.eta+1, o.alpha))
	}
	return val - 1
}

// paretoRank is fio's pareto_next up to its hash: (n-1)*u^pareto_pow,
// so that the hottest h of the blocks take 1-h of the I/Os (0.2: 80/20).
func (o *offsetDraw) paretoRank() uint64 {
	u := float64(o.u32()) / frand32Max
	return uint64(float64(o.n-1) * math.Pow(u, o.paretoPow))
}

// gaussIters is fio's GAUSS_ITERS: a normal is the mean of 12 uniform
// draws (Irwin-Hall), whose deviation is n/12.
const gaussIters = 12

// gaussValue is fio's gauss_next up to its hash: the mean of 12 draws
// over 0..n (about normal, centred on n/2, deviation n/12), plus a uniform
// jitter as wide as the deviation option (halved until it stays in the
// region).
func (o *offsetDraw) gaussValue() uint64 {
	var sum uint64
	for range gaussIters {
		sum += below(o.rng, o.n+1)
	}
	sum = (sum + gaussIters - 1) / gaussIters
	if o.stddev != 0 {
		// gauss_dev: stddev*(r/2^32) - stddev/2, in C's int.
		vr := int64(float64(o.stddev) * (float64(o.u32()) / (frand32Max + 1.0)))
		dev := vr - int64(o.stddev/2)
		for uint64(dev)+sum >= o.n {
			dev /= 2
		}
		sum += uint64(dev)
	}
	return sum
}

// zoned is fio's __get_next_rand_offset_zoned and _zoned_abs: an access
// percent 1..100 picks a range, and the block is uniform within it.
func (o *offsetDraw) zoned(dir int) uint64 {
	t := o.zones[dir]
	if t == nil {
		return below(o.rng, o.n)
	}
	s := t[below(o.rng, 100)]
	if o.kind == DistZonedAbs {
		return s.lo + below(o.rng, s.hi-s.lo)
	}
	lo := s.lo * o.n / 100
	return lo + below(o.rng, o.n*(s.hi-s.lo)/100)
}

// reseed starts the map over: a new order of the blocks, as fio's
// fio_file_reset clears its random map at the start of every strided
// zone.
func (p *blockPerm) reseed(rng *rand.PCG) {
	p.state = rng.Uint64() & p.mask
	p.incr = (rng.Uint64() | 1) & p.mask
	if p.mask == 1 {
		p.incr = 1
	}
}

// zoneWalk is a worker's place in fio's strided zones.
type zoneWalk struct {
	size, rng, skip int64
	start           int64 // the current zone's first byte
	bytes           int64 // issued in the current zone (fio's zone_bytes)
}

// stepZone is fio's setup_strided_zone_mode, run before every I/O's
// offset: past zonesize bytes in a zone it moves zonerange+zoneskip on
// (back to the region's start past its end), and a sequential position
// past the zone's end goes back to the zone's start; the random map
// starts over every zonerange bytes.
func (w *worker) stepZone(dir int) {
	z := &w.zone
	if z.bytes >= z.size {
		z.bytes = 0
		z.start += z.rng + z.skip
		if z.start >= w.regionEnd {
			z.start = w.spec.Offset
		}
		w.pos[dir] = z.start
	}
	if w.pos[dir] >= z.start+z.rng {
		w.pos[dir] = z.start
	}
	if w.perm != nil && z.bytes%z.rng == 0 {
		w.perm.reseed(w.rng)
	}
	z.bytes += w.spec.BS
}

// setupDraws prepares the distribution and the zones of a worker: the
// blocks a random draw spans (the region's or a zone's), the map over
// them when fio keeps one, and the distribution's draw.
func (w *worker) setupDraws() {
	spec := w.spec
	span := w.nBlocks
	if z := spec.Zones; z.Size > 0 {
		r := z.RangeIn(spec.Size)
		w.zone = zoneWalk{size: z.Size, rng: r, skip: z.Skip, start: spec.Offset}
		w.zoned = true
		span = uint64(r / spec.BS)
	}
	w.drawBlocks = span
	if !w.random {
		return
	}
	if spec.Distribution.Uniform() {
		if spec.RandomMap && spec.vmap == nil && span > 1 {
			w.perm = newBlockPerm(span, w.rng)
		}
		return
	}
	// fio forces norandommap=1 for every distribution but random.
	w.dist = newOffsetDraw(spec.Distribution, span, uint64(spec.BS), newRand(spec.Seed^0xd157, w.index+1))
}

// randomBlock is the block of the next random offset, from the start of
// the region or the zone.
func (w *worker) randomBlock(dir int) uint64 {
	switch {
	case w.dist != nil:
		return w.dist.next(dir)
	case w.perm != nil:
		return w.perm.next()
	}
	return below(w.rng, w.drawBlocks)
}

// zonedOffset is nextOffset within fio's strided zones.
func (w *worker) zonedOffset(dir int) int64 {
	w.stepZone(dir)
	if w.random {
		return w.zone.start + int64(w.randomBlock(dir))*w.spec.BS
	}
	off := w.pos[dir]
	w.pos[dir] = off + w.spec.BS
	return off
}
