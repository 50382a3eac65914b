package orion

import (
	"fmt"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// role is what a job of a data point's group is.
type role int

const (
	roleSmall role = iota
	roleLarge
	roleWarm
)

// groupInfo says what one group of the plan is: a data point of a set, or
// (point -1) the cache warm-up before one.
type groupInfo struct {
	set, point int
	roles      []role
}

// target is where the workloads go: one LUN, or several as one volume.
type target struct {
	filename string
	volume   *blockbench.Volume
	size     int64 // bytes of the address space; 0 when unknown (a file to create)
}

func (t *Test) target() target {
	if len(t.luns) == 1 {
		return target{filename: t.luns[0].Path, size: t.luns[0].SizeBytes}
	}
	v := &blockbench.Volume{Layout: concat{}}
	var total int64
	var sizes []int64
	for _, l := range t.luns {
		v.Filenames = append(v.Filenames, l.Path)
		total += l.SizeBytes
		sizes = append(sizes, l.SizeBytes)
	}
	if t.opt.Simulate == "raid0" {
		r := raid0{Stripe: t.stripe()}
		v.Layout, total = r, r.Size(sizes)
	}
	return target{filename: t.luns[0].Path, volume: v, size: total}
}

// stripe is -simulate raid0's stripe depth: -stripe, or else ASM's 1 MB,
// or the large I/O size when that is larger, so that no I/O crosses a
// stripe.
func (t *Test) stripe() int64 {
	if t.opt.Stripe > 0 {
		return int64(t.opt.Stripe) << 10
	}
	return max(StripeBytes, int64(t.opt.SizeLarge)<<10)
}

// checkStripe refuses I/O sizes that do not divide the stripe: such an I/O
// would span two LUNs, which one request cannot.
func (t *Test) checkStripe() error {
	if t.opt.Simulate != "raid0" || len(t.luns) < 2 {
		return nil
	}
	st := t.stripe()
	if st%(int64(t.opt.SizeLarge)<<10) != 0 {
		return result.Usagef("-size_large", "%d KiB does not divide the %d KiB stripe of -simulate raid0", t.opt.SizeLarge, st>>10)
	}
	for _, s := range t.opt.SizeSmall {
		if st%(int64(s)<<10) != 0 {
			return result.Usagef("-size_small", "%d KiB does not divide the %d KiB stripe of -simulate raid0; give a power of two", s, st>>10)
		}
	}
	return nil
}

// rw is the rw mode for -write: reads, writes, or a mix with each I/O
// picking its direction (ORION's -write is a percentage of the I/Os).
func (t *Test) rw(random bool) (blockbench.RW, int) {
	switch {
	case t.opt.Write == 0 && random:
		return blockbench.RandRead, 100
	case t.opt.Write == 0:
		return blockbench.Read, 100
	case t.opt.Write == 100 && random:
		return blockbench.RandWrite, 0
	case t.opt.Write == 100:
		return blockbench.Write, 0
	case random:
		return blockbench.RandRW, 100 - t.opt.Write
	}
	return blockbench.ReadWrite, 100 - t.opt.Write
}

// workload is one job of a point: load I/Os of bs KiB kept in flight, on an
// engine that keeps them (one worker of that depth) or as load workers of
// one I/O each, as ORION does without asynchronous I/O.
func (t *Test) workload(tg target, name string, random bool, bsKiB, load int) blockbench.Workload {
	rw, mix := t.rw(random)
	w := blockbench.Workload{
		Name: name, Filename: tg.filename, Volume: tg.volume, RW: rw, RWMixRead: mix, BS: int64(bsKiB) << 10,
		Size: t.opt.Size, IODepth: load, NumJobs: 1, IOEngine: t.opt.IOEngine, Direct: t.opt.Direct,
		Runtime: t.opt.Duration, TimeBased: true, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom},
	}
	// ORION issues asynchronous I/O at every load, 1 included: auto picks
	// the engine a queue needs for all of them, so the matrix is measured
	// on one engine.
	e, queues, err := blockbench.ResolveEngine(t.opt.IOEngine, 2)
	if err == nil && t.opt.IOEngine == blockbench.EngineAuto {
		w.IOEngine = e
	}
	if err == nil && !queues && load > 1 {
		w.IODepth, w.NumJobs = 1, load
		t.byWorkers = true
	}
	return w
}

// buildPlan lays out every set's points as groups, each preceded by the
// cache warm-up when -cache_size asks for one and the point has sequential
// streams.
func (t *Test) buildPlan() error {
	tg := t.target()
	p := blockbench.Plan{DestroyData: t.opt.DestroyData, AllowSparse: t.opt.AllowSparse, AllowCached: t.opt.AllowCached, SizeGiven: t.opt.Size > 0, Warn: t.opt.Warn, CommandLine: t.opt.CommandLine, Shape: t.opt.Shape}
	seed := t.opt.Seed
	add := func(info groupInfo, g blockbench.Group) {
		for k := range g {
			g[k].Seed = seed
			seed++
		}
		p.Groups = append(p.Groups, g)
		t.groups = append(t.groups, info)
	}
	for si, set := range t.sets {
		for pi, pt := range set.points {
			label := fmt.Sprintf("%s%s", set.label, pt)
			var g blockbench.Group
			info := groupInfo{set: si, point: pi}
			if pt.Small > 0 {
				g = append(g, t.workload(tg, label+" small", true, set.sizeKiB, pt.Small))
				info.roles = append(info.roles, roleSmall)
			}
			if pt.Large > 0 {
				streams, err := t.large(tg, label, pt.Large)
				if err != nil {
					return err
				}
				for range streams {
					info.roles = append(info.roles, roleLarge)
				}
				g = append(g, streams...)
				if t.opt.Type == "seq" && t.opt.CacheSize > 0 {
					add(groupInfo{set: si, point: -1, roles: []role{roleWarm}}, blockbench.Group{t.warmUp(tg, label)})
				}
			}
			add(info, g)
		}
	}
	t.plan = p
	return nil
}

// large is a point's large I/O: one random workload of load outstanding
// I/Os, or load sequential streams, each num_streamIO deep on its own slice
// of the address space, so no two streams read the same blocks.
func (t *Test) large(tg target, label string, load int) ([]blockbench.Workload, error) {
	if t.opt.Type == "rand" {
		return []blockbench.Workload{t.workload(tg, label+" large", true, t.opt.SizeLarge, load)}, nil
	}
	bs := int64(t.opt.SizeLarge) << 10
	slice := tg.size / int64(load) / bs * bs
	if tg.size > 0 && slice < bs {
		return nil, result.Usagef("-num_large", "%d streams of %d KiB do not fit in %d bytes of LUN; give fewer streams or a larger LUN", load, t.opt.SizeLarge, tg.size)
	}
	var out []blockbench.Workload
	for k := range load {
		w := t.workload(tg, fmt.Sprintf("%s large stream %d", label, k+1), false, t.opt.SizeLarge, t.opt.NumStreamIO)
		if tg.size > 0 {
			w.Offset, w.Size = int64(k)*slice, slice
		}
		out = append(out, w)
	}
	return out, nil
}

// warmUp reads -cache_size MiB at random in large I/Os before a point with
// sequential streams, as ORION warms the array's cache; it is not measured.
func (t *Test) warmUp(tg target, label string) blockbench.Workload {
	w := t.workload(tg, label+" cache (warm-up)", true, t.opt.SizeLarge, 1)
	w.RW, w.RWMixRead = blockbench.RandRead, 100
	bs := int64(t.opt.SizeLarge) << 10
	size := int64(t.opt.CacheSize) << 20
	if tg.size > 0 {
		size = min(size, tg.size)
	}
	w.Size = max(bs, size/bs*bs)
	w.TimeBased, w.Runtime = false, 0
	return w
}

// fill turns the jobs of res into the sets' data points.
func (t *Test) fill(res *result.Block) {
	next := 0
	for _, info := range t.groups {
		if next+len(info.roles) > len(res.Jobs) {
			break // interrupted: what finished
		}
		jobs := res.Jobs[next : next+len(info.roles)]
		first := next
		next += len(info.roles)
		if info.point < 0 {
			continue
		}
		pt := t.sets[info.set].points[info.point]
		op := result.OrionPoint{Small: pt.Small, Large: pt.Large}
		var largeBytes int64
		var large [2][]result.LatNs
		for k := range jobs {
			j := &jobs[k]
			op.Jobs = append(op.Jobs, first+k)
			op.ElapsedNs = max(op.ElapsedNs, j.ElapsedNs)
			op.Partial = op.Partial || j.Interrupted
			switch info.roles[k] {
			case roleSmall:
				op.SmallIOPS = j.Read.IOPS + j.Write.IOPS
				op.SmallLatUs = meanLatNs(j) / 1e3
				op.SmallRead, op.SmallWrite = latOf(j.Read.TotalIOs, j.Read.Lat), latOf(j.Write.TotalIOs, j.Write.Lat)
			case roleLarge:
				op.LargeIOPS += j.Read.IOPS + j.Write.IOPS
				largeBytes += j.Read.BWBytes + j.Write.BWBytes
				for d, dir := range []result.BlockDir{j.Read, j.Write} {
					if dir.TotalIOs > 0 {
						large[d] = append(large[d], dir.Lat)
					}
				}
			}
		}
		op.LargeMBPS = float64(largeBytes) / (1 << 20)
		op.LargeRead, op.LargeWrite = mergedLat(large[0]), mergedLat(large[1])
		set := &res.Orion.Sets[info.set]
		set.Points = append(set.Points, op)
	}
}

func meanLatNs(j *result.BlockJob) float64 {
	n := j.Read.Lat.N + j.Write.Lat.N
	if n == 0 {
		return 0
	}
	return (j.Read.Lat.Mean*float64(j.Read.Lat.N) + j.Write.Lat.Mean*float64(j.Write.Lat.N)) / float64(n)
}

// latOf is a direction's latency for a point, without the histogram (the
// job has it); nil when the direction did no I/O.
func latOf(ios int64, l result.LatNs) *result.LatNs {
	if ios == 0 {
		return nil
	}
	l.HDR = ""
	return &l
}

// mergedLat is the latency of several streams' I/Os together: their
// histograms merged, so the percentiles are the point's, not one stream's.
func mergedLat(ls []result.LatNs) *result.LatNs {
	switch len(ls) {
	case 0:
		return nil
	case 1:
		return latOf(1, ls[0])
	}
	acc, err := ls[0].Recorder()
	if err != nil {
		return latOf(1, ls[0])
	}
	for _, l := range ls[1:] {
		r, err := l.Recorder()
		if err != nil {
			return latOf(1, ls[0])
		}
		acc.Merge(r)
	}
	m := result.LatNsFrom(acc, latency.FioPercentiles)
	return latOf(1, m)
}
