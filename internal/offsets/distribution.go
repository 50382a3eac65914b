// Package offsets holds fio's offset generators as plain values, with no
// knowledge of jobs or workers: random_distribution (zipf, pareto,
// normal, zoned, zoned_abs), zonemode=strided's walk, the random map
// (norandommap=0) and the sequencer (rw=MODE:N, rw_sequencer). A
// benchmark's worker owns one of each it needs, draws from it once per
// I/O and turns the block it gets into an offset; nothing here allocates
// after its constructor.
package offsets

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// Kind is fio's random_distribution: how random offsets are spread over
// the region's blocks.
type Kind string

// The distributions. Random (or "") is uniform, fio's default; the
// others mirror fio's lib/zipf.c, lib/gauss.c and io_u.c's zoned draws.
const (
	Random   Kind = "random"
	Zipf     Kind = "zipf"
	Pareto   Kind = "pareto"
	Normal   Kind = "normal"
	Zoned    Kind = "zoned"
	ZonedAbs Kind = "zoned_abs"
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
	Kind Kind
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
	Zones [2][]Zone
}

// Zone is one range of a zoned distribution: AccessPct of the I/Os go
// to the next SizePct percent (zoned) or Size bytes (zoned_abs) of the
// region, after the ranges before it.
type Zone struct {
	AccessPct int
	SizePct   int
	Size      int64
}

// Uniform says d draws every offset with the same chance (fio's
// random_distribution=random).
func (d Distribution) Uniform() bool { return d.Kind == "" || d.Kind == Random }

// dirNames name the directions a zoned distribution has ranges for.
var dirNames = [2]string{"read", "write"}

// Problem is what is wrong with d in fio's ranges (options.c
// str_random_distribution_cb, zone_split_ddir), or "".
func (d Distribution) Problem() string {
	switch d.Kind {
	case "", Random:
	case Zipf:
		// fio refuses only 1; clyde refuses a theta of 0 or below too,
		// which is no zipf (0 is uniform, below it the pole moves to
		// the other end).
		if !(d.Param > 0) || d.Param == 1 || math.IsInf(d.Param, 0) {
			return fmt.Sprintf("zipf:%g: give a theta above 0 other than 1 (fio's default 1.1)", d.Param)
		}
	case Pareto:
		if !(d.Param > 0 && d.Param < 1) {
			return fmt.Sprintf("pareto:%g: give an h with 0 < h < 1 (fio's default 0.2)", d.Param)
		}
	case Normal:
		if !(d.Param >= 0 && d.Param < 100) {
			return fmt.Sprintf("normal:%g: give a deviation with 0 <= dev < 100 (percent of the region)", d.Param)
		}
	case Zoned, ZonedAbs:
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
	return ""
}

// zoneSplitProblem is fio's zone_split_ddir: the access percentages add
// up to 100, the size percentages to at most 100.
func zoneSplitProblem(k Kind, dir string, zs []Zone) string {
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
	if k == Zoned && size > 100 {
		return fmt.Sprintf("zoned: the size percentages of the %s ranges add up to %d, more than 100", dir, size)
	}
	return ""
}

// maxZoneSplits is fio's ZONESPLIT_MAX.
const maxZoneSplits = 256

// Below returns a uniform value in [0, n) from one 64-bit draw (Lemire's
// multiply-shift, without the rejection step: the bias is below 2^-40 for any
// block count clyde meets, and the I/O loop must stay branch-light).
func Below(rng *rand.PCG, n uint64) uint64 {
	hi, _ := bits.Mul64(rng.Uint64(), n)
	return hi
}

// Draw draws the block of a random offset for one worker, from a
// distribution, over n blocks (the region's, or a strided zone's). NewDraw
// sets it up; Next allocates nothing.
type Draw struct {
	kind Kind
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

// Frand32Max is fio's FRAND32_MAX: its 32-bit generator's largest value,
// which fio's draws divide by.
const Frand32Max = math.MaxUint32

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

// NewDraw is the draw of one worker over n blocks of bs bytes (zoned_abs
// counts its ranges in them), or nil for a uniform distribution (the
// worker's own draw, with or without the map).
func NewDraw(d Distribution, n, bs uint64, rng *rand.PCG) *Draw {
	if d.Uniform() || n == 0 {
		return nil
	}
	o := &Draw{kind: d.Kind, rng: rng, n: n}
	switch d.Kind {
	case Zipf, Pareto:
		// shared_rand_init: rank 0 lands on a drawn block, or at center.
		o.randOff = uint64(o.u32())
		if d.HasCenter {
			o.randOff = uint64(float64(n) * d.Center)
		}
		if d.Kind == Pareto {
			o.paretoPow = math.Log(d.Param) / math.Log(1-d.Param)
			break
		}
		o.theta = d.Param
		zeta2 := math.Pow(1, o.theta) + math.Pow(0.5, o.theta)
		o.zetan = zipfZetan(n, o.theta)
		o.alpha = 1 / (1 - o.theta)
		o.eta = (1 - math.Pow(2/float64(n), 1-o.theta)) / (1 - zeta2/o.zetan)
		o.half = math.Pow(0.5, o.theta)
	case Normal:
		if d.Param != 0 {
			o.stddev = uint64(uint32(math.Ceil(float64(n) * d.Param / 100)))
			o.stddev = min(o.stddev, n/2)
		}
		if d.HasCenter {
			// gauss_init: rand_off is an unsigned int, so a center
			// below 0.5 wraps, as fio's conversion does on x86-64.
			o.randOff = uint64(uint32(int64(float64(n) * (d.Center - 0.5))))
		}
	case Zoned, ZonedAbs:
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
func zoneIndex(k Kind, zs []Zone, bs uint64) *[100]zoneSpan {
	t := new([100]zoneSpan)
	aprev := 0
	var sprev uint64
	for _, z := range zs {
		size := uint64(z.SizePct)
		if k == ZonedAbs {
			size = uint64(z.Size)
		}
		for j := aprev; j < aprev+z.AccessPct && j < 100; j++ {
			t[j] = zoneSpan{lo: sprev, hi: sprev + size}
		}
		aprev += z.AccessPct
		sprev += size
	}
	if k == ZonedAbs {
		for i := range t {
			t[i].lo, t[i].hi = t[i].lo/bs, t[i].hi/bs
		}
	}
	return t
}

// u32 is one draw of fio's 32-bit generator (__rand).
func (o *Draw) u32() uint32 { return uint32(o.rng.Uint64() >> 32) }

// Next is the block of the next random offset for direction dir (0
// reads, 1 writes).
func (o *Draw) Next(dir int) uint64 {
	switch o.kind {
	case Zipf:
		return o.scatter(o.zipfRank())
	case Pareto:
		return o.scatter(o.paretoRank())
	case Normal:
		return o.scatter(o.gaussValue())
	}
	return o.zoned(dir)
}

// scatter is fio's last step of zipf_next, pareto_next and gauss_next:
// __hash_u64 (a multiply by GOLDEN_RATIO_64, modulo 2^64) spreads the
// ranks over the region, rand_off shifts them, modulo the blocks.
func (o *Draw) scatter(v uint64) uint64 { return (v*goldenRatio64 + o.randOff) % o.n }

// Unhashed is fio's zipf_next, pareto_next or gauss_next with the hash
// disabled (zipf_disable_hash, gauss_disable_hash), as file_service_type
// draws a file: the rank shifted by rand_off, modulo the ranges.
func (o *Draw) Unhashed() uint64 {
	var v uint64
	switch o.kind {
	case Zipf:
		v = o.zipfRank()
	case Pareto:
		v = o.paretoRank()
	default:
		v = o.gaussValue()
	}
	return (v + o.randOff) % o.n
}

// zipfRank is fio's zipf_next up to its hash: the rank (0 hottest) from
// the approximate inverse of the zipf distribution of Gray et al.,
// "Quickly generating billion-record synthetic databases".
func (o *Draw) zipfRank() uint64 {
	u := float64(o.u32()) / Frand32Max
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
func (o *Draw) paretoRank() uint64 {
	u := float64(o.u32()) / Frand32Max
	return uint64(float64(o.n-1) * math.Pow(u, o.paretoPow))
}

// gaussIters is fio's GAUSS_ITERS: a normal is the mean of 12 uniform
// draws (Irwin-Hall), whose deviation is n/12.
const gaussIters = 12

// gaussValue is fio's gauss_next up to its hash: the mean of 12 draws
// over 0..n (about normal, centred on n/2, deviation n/12), plus a uniform
// jitter as wide as the deviation option (halved until it stays in the
// region).
func (o *Draw) gaussValue() uint64 {
	var sum uint64
	for range gaussIters {
		sum += Below(o.rng, o.n+1)
	}
	sum = (sum + gaussIters - 1) / gaussIters
	if o.stddev != 0 {
		// gauss_dev: stddev*(r/2^32) - stddev/2, in C's int.
		vr := int64(float64(o.stddev) * (float64(o.u32()) / (Frand32Max + 1.0)))
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
func (o *Draw) zoned(dir int) uint64 {
	t := o.zones[dir]
	if t == nil {
		return Below(o.rng, o.n)
	}
	s := t[Below(o.rng, 100)]
	if o.kind == ZonedAbs {
		return s.lo + Below(o.rng, s.hi-s.lo)
	}
	lo := s.lo * o.n / 100
	return lo + Below(o.rng, o.n*(s.hi-s.lo)/100)
}
