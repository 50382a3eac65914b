package fiojob

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// Shape fills the parts of a block result that exist for fio's readers
// (blockbench.Shaper): fio's 500 ms sample statistics, the queue-depth and
// latency distributions, bw_agg, and the job options in fio's syntax. The
// CLI sets it on every block plan it runs (clyde block, cdm, iometer,
// orion); a library caller that wants fio's JSON sets it too.
var Shape blockbench.Shaper = shape{}

type shape struct{}

// Job fills one job's fio fields from its workers' measurement.
func (shape) Job(job *result.BlockJob, m *blockbench.JobMeasure) {
	fio := jobFields(m)
	fio.Ctx, fio.Majf, fio.Minf = job.Ctx, job.Majf, job.Minf // the CPU's, set by blockbench
	job.BlockJobFio = fio
	var dirs []int
	for d, out := range []*result.BlockDir{&job.Read, &job.Write} {
		if out.TotalIOs > 0 {
			sampleStats(out, m.Workers, d)
			dirs = append(dirs, d)
		}
	}
	if job.Mixed != nil && job.Mixed.TotalIOs > 0 {
		mixedSampleStats(job.Mixed, m.Workers, dirs)
	}
	job.Options = options(m)
}

// Group fills bw_agg of every job of one reporting group.
func (shape) Group(g *result.BlockGroup, jobs []*result.BlockJob) { setBWAgg(jobs, g) }

// Merge fills fio's fields of a job summed over ranks.
func (shape) Merge(m *result.BlockJob, parts []result.BlockJob) error {
	// fio keeps no samples for trims; a direction with no I/O has none.
	for d, out := range []*result.BlockDir{&m.Read, &m.Write, m.Mixed} {
		if out == nil || out.TotalIOs == 0 {
			continue
		}
		dirs := make([]*result.BlockDir, 0, len(parts))
		for r := range parts {
			if dir := [3]*result.BlockDir{&parts[r].Read, &parts[r].Write, parts[r].Mixed}[d]; dir != nil {
				dirs = append(dirs, dir)
			}
		}
		mergeSamples(out, dirs)
	}
	return mergeDists(m, parts)
}

// depthBucket is fio's io_u_mark_depth bucket for n I/Os in flight: 1,
// 2-3, 4-7, 8-15, 16-31, 32-63, 64 and more.
func depthBucket(n int) int {
	switch {
	case n >= 64:
		return 6
	case n <= 1:
		return 0
	}
	return min(6, bitsLen(n)-1)
}

// batchBucket is fio's io_u_mark_submit/complete bucket for a call that
// moved n I/Os: 0, 1-4, 5-8, 9-16, 17-32, 33-64, more.
func batchBucket(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= 4:
		return 1
	case n > 64:
		return 6
	}
	return bitsLen(n-1) - 1 // 5-8: 2, 9-16: 3, 17-32: 4, 33-64: 5
}

func bitsLen(n int) int {
	l := 0
	for ; n > 0; n >>= 1 {
		l++
	}
	return l
}

// fioLevels bins a worker's counts (h[n]: events of n) into fio's seven
// buckets (bucket is depthBucket or batchBucket).
func fioLevels(h []int64, bucket func(int) int) [7]int64 {
	var b [7]int64
	for n, c := range h {
		if c != 0 {
			b[bucket(n)] += c
		}
	}
	return b
}

var (
	depthLabels = []string{"1", "2", "4", "8", "16", "32", ">=64"}
	batchLabels = []string{"0", "4", "8", "16", "32", "64", ">=64"}
	// latEdges split the clat axis into fio's latency_ns, latency_us and
	// latency_ms buckets; each label is the top of its bucket.
	latEdges = []int64{
		2, 4, 10, 20, 50, 100, 250, 500, 750, 1000,
		2e3, 4e3, 10e3, 20e3, 50e3, 100e3, 250e3, 500e3, 750e3, 1e6,
		2e6, 4e6, 10e6, 20e6, 50e6, 100e6, 250e6, 500e6, 750e6, 1e9, 2e9,
	}
	latLabels = []string{"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"}
)

// dist is fio's stat_calc_dist: each count in percent of total, a non-zero
// count shown as at least floor percent.
func dist(labels []string, counts []int64, total int64, floor float64) result.Dist {
	d := make(result.Dist, len(labels))
	for i, l := range labels {
		d[i].Key = l
		if total > 0 {
			v := float64(counts[i]) / float64(total) * 100
			if counts[i] > 0 && v < floor {
				v = floor
			}
			d[i].Value = v
		}
	}
	return d
}

func sum(counts []int64) int64 {
	var s int64
	for _, c := range counts {
		s += c
	}
	return s
}

// jobFields is what only fio's readers look at: the depth distributions
// and fio's latency buckets of the clat histograms (context switches and
// faults are the caller's).
//
// The depth is counted as fio's td_io_queue counts it, the same for every
// engine: an I/O the engine queued is in the bucket of the I/Os in flight
// it joined (the engine's InFlight), one that completed inside its own
// queue call (a synchronous engine; null at iodepth 1, which fio runs as
// FIO_SYNCIO) in bucket 1. So a worker that did I/O and counted none in
// flight did all of it at depth 1.
func jobFields(m *blockbench.JobMeasure) result.BlockJobFio {
	f := result.BlockJobFio{LatencyDepth: m.Depth, LatencyPercentile: 100}
	var depth, queued, reaps [7]int64
	var ios int64
	for _, w := range m.Workers {
		n := w.IOs[0] + w.IOs[1]
		ios += n
		wd, wr := fioLevels(w.InFlight, depthBucket), fioLevels(w.Reaped, batchBucket)
		if sum(wd[:]) == 0 {
			depth[0] += n // completed in the queue call: fio's io_u_mark_depth(td, 1)
		}
		for i := range depth {
			depth[i] += wd[i]
			queued[i] += wd[i]
			reaps[i] += wr[i]
		}
	}
	if !m.Queues {
		// An engine without a commit stage (psync, mmap): fio's
		// td_io_queue counts one submission and one completion per I/O.
		reaps = [7]int64{0, ios}
	}
	// What each io_uring_enter / io_submit took (fio's io_u_mark_submit);
	// a queueing engine that counts none submits one I/O per call. queued
	// counts the I/Os it queued (a batch at once, as fio's io_u_map), so
	// the fallback is one submit call per queued I/O; a synchronous
	// completion in an engine with a commit stage (null at iodepth 1) is
	// in no submit and no reap, as in fio.
	var submits [7]int64
	for _, w := range m.Workers {
		for i, c := range fioLevels(w.Submitted, batchBucket) {
			submits[i] += c
		}
	}
	switch {
	case !m.Queues:
		submits = [7]int64{0, ios}
	case sum(submits[:]) == 0:
		submits = [7]int64{0, sum(queued[:])}
	}
	f.IODepthLevel = dist(depthLabels, depth[:], sum(depth[:]), 0.1)
	f.IODepthSubmit = dist(batchLabels, submits[:], sum(submits[:]), 0.1)
	f.IODepthComplete = dist(batchLabels, reaps[:], sum(reaps[:]), 0.1)
	setLatencyLevels(&f, m.Clat[:]...)
	return f
}

// setLatencyLevels fills fio's latency_ns, latency_us and latency_ms from
// the clat histograms of both directions.
func setLatencyLevels(f *result.BlockJobFio, clat ...*latency.Recorder) {
	counts := make([]int64, len(latEdges)+1)
	for _, r := range clat {
		if r == nil {
			continue
		}
		for i, c := range r.CountsBelow(latEdges) {
			counts[i] += c
		}
	}
	total := sum(counts)
	f.LatencyNs = dist(latLabels, counts[0:10], total, 0.01)
	f.LatencyUs = dist(latLabels, counts[10:20], total, 0.01)
	f.LatencyMs = dist(append(latLabels[:10:10], "2000", ">=2000"), counts[20:32], total, 0.01)
}

// sampleAcc is fio's io_stat over one worker's samples: Welford's running
// mean and sum of squared deviations.
type sampleAcc struct {
	n         int64
	min, max  int64
	mean, sqd float64
}

func (a *sampleAcc) add(v int64) {
	if a.n == 0 || v < a.min {
		a.min = v
	}
	a.max = max(a.max, v)
	a.n++
	delta := float64(v) - a.mean
	a.mean += delta / float64(a.n)
	a.sqd += delta * (float64(v) - a.mean)
}

// addPure adds another worker's statistics as fio's group_reporting adds a
// job's clones (sum_stat with pure_sum): minimums, maximums, means, squared
// deviations and sample counts summed.
func (a *sampleAcc) addPure(b sampleAcc) {
	if b.n == 0 {
		return
	}
	if a.n == 0 {
		*a = b
		return
	}
	a.min += b.min
	a.max += b.max
	a.n += b.n
	a.mean += b.mean
	a.sqd += b.sqd
}

func (a *sampleAcc) dev() float64 {
	if a.n < 2 {
		return 0
	}
	return math.Sqrt(a.sqd / float64(a.n-1))
}

// sampleStats fills bw_* and iops_* of one direction as fio computes them:
// per worker, one sample per 500 ms window that moved data (bw in KiB/s
// and IOPS, both in whole units over the window's whole milliseconds), a
// closing window shorter than half a window left out; the workers'
// statistics then summed as fio's group_reporting sums clones.
func sampleStats(out *result.BlockDir, workers []blockbench.WorkerMeasure, dir int) {
	setSamples(out, sampleAccs(workers, dir))
}

// mixedSampleStats fills fio's "mixed" bw_* and iops_*: the directions'
// statistics summed as sum_thread_stats sums them into one (sum_stat with
// pure_sum: minimums, maximums, means, squared deviations and sample
// counts added), over the directions that did I/O.
func mixedSampleStats(out *result.BlockDir, workers []blockbench.WorkerMeasure, dirs []int) {
	var sum [2]sampleAcc
	for _, d := range dirs {
		accs := sampleAccs(workers, d)
		sum[0].addPure(accs[0])
		sum[1].addPure(accs[1])
	}
	setSamples(out, sum)
}

// sampleAccs are one direction's bandwidth and IOPS samples over the
// workers, summed as fio's group_reporting sums clones.
func sampleAccs(workers []blockbench.WorkerMeasure, dir int) [2]sampleAcc {
	var bw, iops sampleAcc
	for _, w := range workers {
		var wbw, wiops sampleAcc
		for k := 1; k < len(w.Marks); k++ {
			prev, cur := w.Marks[k-1], w.Marks[k]
			span := cur.AtNs - prev.AtNs
			bytes := cur.Bytes[dir] - prev.Bytes[dir]
			if bytes == 0 || span < blockbench.MarkEvery/2 {
				continue
			}
			spentMs := span / int64(time.Millisecond)
			wbw.add(bytes * 1000 / spentMs / 1024)
			wiops.add((cur.IOs[dir] - prev.IOs[dir]) * 1000 / spentMs)
		}
		bw.addPure(wbw)
		iops.addPure(wiops)
	}
	return [2]sampleAcc{bw, iops}
}

// setSamples writes bandwidth and IOPS statistics into out.
func setSamples(out *result.BlockDir, accs [2]sampleAcc) {
	bw, iops := accs[0], accs[1]
	out.BWMin, out.BWMax, out.BWMean, out.BWDev, out.BWSamples = bw.min, bw.max, bw.mean, bw.dev(), int(bw.n)
	out.IOPSMin, out.IOPSMax, out.IOPSMean, out.IOPSStddev, out.IOPSSamples = iops.min, iops.max, iops.mean, iops.dev(), int(iops.n)
}

// setBWAgg fills bw_agg of every job of one reporting group: the job's
// bw_mean in percent of the group's bandwidth (its bytes over its longest
// runtime), at most 100, as fio's convert_agg_kbytes_percent.
func setBWAgg(jobs []*result.BlockJob, g *result.BlockGroup) {
	mixedAgg := mixedGroupBW(jobs)
	for _, j := range jobs {
		for d, out := range []*result.BlockDir{&j.Read, &j.Write, j.Mixed} {
			if out == nil {
				continue
			}
			// fio's mixed object is its direction 0: of mixed mode's
			// group, whose direction 0 is every direction summed, or of
			// both mode's, whose direction 0 is the reads.
			agg := [3]int64{g.Read.BWBytes, g.Write.BWBytes, g.Read.BWBytes}[d]
			if d == 2 && j.MixedOnly {
				agg = mixedAgg
			}
			out.BWAgg = bwAgg(out, agg)
		}
	}
}

// bwAgg is fio's convert_agg_kbytes_percent of a direction whose group
// moved agg bytes per second (fio passes the mean as an int).
func bwAgg(out *result.BlockDir, agg int64) float64 {
	switch {
	case out.BWSamples == 0:
		return 0
	case agg <= 1024:
		return 100
	}
	return min(100, float64(int64(out.BWMean))*100/(float64(agg)/1024))
}

// mixedGroupBW is a mixed-mode reporting group's bandwidth as fio's
// __show_run_stats sums it: the jobs' bytes over their longest runtime,
// every direction as one.
func mixedGroupBW(jobs []*result.BlockJob) int64 {
	var bytes, runtime int64
	for _, j := range jobs {
		if j.Mixed != nil {
			bytes += j.Mixed.IOBytes
			runtime = max(runtime, j.Mixed.RuntimeNs)
		}
	}
	if runtime == 0 {
		return 0
	}
	return int64(math.Round(float64(bytes) * 1e9 / float64(runtime)))
}

// mergeSamples sums one direction's 500 ms sample statistics over ranks as
// fio's clones add up (stat.c's sum_thread_stats under group_reporting):
// minimums, maximums, means and sample counts summed, deviations in
// quadrature.
func mergeSamples(m *result.BlockDir, dirs []*result.BlockDir) {
	m.BWMin, m.BWMax, m.BWMean, m.BWDev, m.BWSamples = 0, 0, 0, 0, 0
	m.IOPSMin, m.IOPSMax, m.IOPSMean, m.IOPSStddev, m.IOPSSamples = 0, 0, 0, 0, 0
	for _, d := range dirs {
		m.BWMin, m.BWMax, m.BWMean, m.BWSamples = m.BWMin+d.BWMin, m.BWMax+d.BWMax, m.BWMean+d.BWMean, m.BWSamples+d.BWSamples
		m.IOPSMin, m.IOPSMax, m.IOPSMean, m.IOPSSamples = m.IOPSMin+d.IOPSMin, m.IOPSMax+d.IOPSMax, m.IOPSMean+d.IOPSMean, m.IOPSSamples+d.IOPSSamples
		m.BWDev = math.Sqrt(m.BWDev*m.BWDev + d.BWDev*d.BWDev)
		m.IOPSStddev = math.Sqrt(m.IOPSStddev*m.IOPSStddev + d.IOPSStddev*d.IOPSStddev)
	}
}

// mergeDists is fio's distributions over the ranks: each rank's shares
// weighted by its I/Os (fio's own weights: the depth and latency levels
// count I/Os), the latency buckets from the merged clat histograms.
func mergeDists(m *result.BlockJob, parts []result.BlockJob) error {
	weights := make([]float64, len(parts))
	for r, p := range parts {
		weights[r] = float64(p.Read.TotalIOs + p.Write.TotalIOs + p.Trim.TotalIOs)
	}
	pick := func(f func(*result.BlockJobFio) result.Dist) result.Dist {
		ds := make([]result.Dist, len(parts))
		for r := range parts {
			ds[r] = f(&parts[r].BlockJobFio)
		}
		return weightedDist(ds, weights)
	}
	m.IODepthLevel = pick(func(f *result.BlockJobFio) result.Dist { return f.IODepthLevel })
	m.IODepthSubmit = pick(func(f *result.BlockJobFio) result.Dist { return f.IODepthSubmit })
	m.IODepthComplete = pick(func(f *result.BlockJobFio) result.Dist { return f.IODepthComplete })
	var clat []*latency.Recorder
	for _, dir := range []result.LatNs{m.Read.Clat, m.Write.Clat} {
		if dir.N == 0 {
			continue
		}
		r, err := dir.Recorder()
		if err != nil {
			return err
		}
		clat = append(clat, r)
	}
	setLatencyLevels(&m.BlockJobFio, clat...)
	return nil
}

// weightedDist averages distributions of one shape key by key.
func weightedDist(ds []result.Dist, weights []float64) result.Dist {
	var out result.Dist
	var total float64
	for r, d := range ds {
		if len(d) == 0 || weights[r] == 0 {
			continue
		}
		if out == nil {
			out = make(result.Dist, len(d))
			for i, b := range d {
				out[i].Key = b.Key
			}
		}
		total += weights[r]
		for i, b := range d {
			if i < len(out) && out[i].Key == b.Key {
				out[i].Value += b.Value * weights[r]
			}
		}
	}
	for i := range out {
		out[i].Value /= total
	}
	return out
}

// options is the job's "job options": a job written in fio's language
// echoes its own options as fio does (Workload.JobOptions, echo.go), an
// entry group_reporting sums those of its last member, as fio's stat.c
// (opt_lists[j] is each member's in turn); any other job its options as
// it ran (resolvedOptions), sorted by name.
func options(jm *blockbench.JobMeasure) result.Options {
	last := jm.Workload
	if n := len(jm.Members); n > 0 {
		last = jm.Members[n-1]
	}
	if last.JobOptions != nil {
		return slices.Clone(last.JobOptions)
	}
	m := resolvedOptions(jm)
	out := make(result.Options, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, result.Option{Name: k, Value: m[k]})
	}
	return out
}

// resolvedOptions is the workload as it ran in fio's option syntax: sizes
// as "4k"/"1g", times in seconds ("5", "500ms" when not whole), flags as
// 0/1, iodepth and ioengine what ran, data options by fio's names, and the
// workload's Options (an Iometer access specification's name).
func resolvedOptions(jm *blockbench.JobMeasure) map[string]string {
	w := jm.Workload
	m := map[string]string{}
	for k, v := range w.Options {
		m[k] = v
	}
	set := func(k, v string) { m[k] = v }
	set("name", w.Name)
	set("filename", w.Filename)
	set("rw", string(w.RW))
	if w.RW.Mixed() {
		set("rwmixread", strconv.Itoa(w.RWMixRead))
	}
	set("bs", sizeString(w.BS))
	if w.Sizes != nil {
		sizesEcho(w.Sizes, set) // sizeopts.go
	}
	set("size", sizeString(w.Size))
	set("offset", sizeString(w.Offset))
	set("iodepth", strconv.Itoa(jm.Depth))
	set("numjobs", strconv.Itoa(w.NumJobs))
	set("ioengine", string(jm.Engine))
	set("direct", boolOpt(w.Direct))
	set("runtime", durationString(w.Runtime))
	set("ramp_time", durationString(w.RampTime))
	set("time_based", boolOpt(w.TimeBased))
	set("randseed", strconv.FormatUint(w.Seed, 10))
	switch w.Buffer.Kind {
	case blockbench.BufferZero:
		set("zero_buffers", "1")
	case blockbench.BufferCompressible:
		set("buffer_compress_percentage", strconv.Itoa(w.Buffer.CompressPct))
	}
	if w.Buffer.Refill {
		set("refill_buffers", "1")
	}
	if w.Fsync > 0 {
		set("fsync", strconv.Itoa(w.Fsync))
	}
	if w.EndFsync {
		set("end_fsync", "1")
	}
	if w.Fdatasync > 0 {
		set("fdatasync", strconv.Itoa(w.Fdatasync))
	}
	if w.FsyncOnClose {
		set("fsync_on_close", "1")
	}
	// The batching knobs that ran, by fio's name, unless the workload's
	// Options (its engine's echo) hold them already.
	given := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := w.Options[k]; ok {
				return true
			}
		}
		return false
	}
	if w.SubmitBatch > 1 && !given("iodepth_batch_submit", "iodepth_batch") {
		set("iodepth_batch_submit", strconv.Itoa(min(w.SubmitBatch, jm.Depth)))
	}
	if !given("iodepth_batch_complete_min", "iodepth_batch_complete") {
		switch {
		case w.ReapPoll:
			set("iodepth_batch_complete_min", "0")
		case w.ReapMin > 1:
			set("iodepth_batch_complete_min", strconv.Itoa(w.ReapMin))
		}
	}
	if w.IODepthBatchCompleteMax > 0 && !given("iodepth_batch_complete_max") {
		set("iodepth_batch_complete_max", strconv.Itoa(w.IODepthBatchCompleteMax))
	}
	if w.LowWater > 0 && w.LowWater < jm.Depth && !given("iodepth_low") {
		set("iodepth_low", strconv.Itoa(w.LowWater))
	}
	if w.Verify != blockbench.VerifyNone {
		set("verify", string(w.Verify))
		if w.VerifyFatal {
			set("verify_fatal", "1")
		}
		if w.NoVerifyPass {
			set("do_verify", "0")
		}
	}
	if w.Invalidate {
		set("invalidate", "1")
	}
	if w.FadviseHint {
		set("fadvise_hint", "1")
	}
	if w.NewGroup {
		set("new_group", "1")
	}
	if len(w.Report.PercentileList) > 0 {
		ps := slices.Clone(w.Report.PercentileList)
		slices.Sort(ps)
		var s []byte
		for i, p := range slices.Compact(ps) {
			if i > 0 {
				s = append(s, ':')
			}
			s = strconv.AppendFloat(s, p, 'f', -1, 64)
		}
		set("percentile_list", string(s))
	}
	if w.Report.NoClatPercentiles {
		set("clat_percentiles", "0")
	}
	if w.Report.LatPercentiles {
		set("lat_percentiles", "1")
	}
	if w.Report.SlatPercentiles {
		set("slat_percentiles", "1")
	}
	if w.Log != nil {
		w.Log.Options(set)
	}
	distOptions(w, set)
	return m
}

// distOptions echoes the random distribution and the zones in fio's
// syntax.
func distOptions(w *blockbench.Workload, set func(k, v string)) {
	if !w.Distribution.Uniform() {
		set("random_distribution", distString(w.Distribution))
	}
	if z := w.Zones; z.Size > 0 {
		set("zonemode", "strided")
		set("zonesize", sizeString(z.Size))
		set("zonerange", sizeString(z.RangeIn(w.Size)))
		if z.Skip > 0 {
			set("zoneskip", sizeString(z.Skip))
		}
	}
}

// distString is d in fio's syntax: zipf:1.2, normal:10:0.5,
// zoned:60/10:40/90 (read,write when the directions differ).
func distString(d blockbench.Distribution) string {
	if d.Uniform() {
		return string(blockbench.DistRandom)
	}
	s := string(d.Kind)
	switch d.Kind {
	case blockbench.DistZoned, blockbench.DistZonedAbs:
		parts := []string{zonesString(d.Kind, d.Zones[0])}
		if !slices.Equal(d.Zones[0], d.Zones[1]) {
			parts = append(parts, zonesString(d.Kind, d.Zones[1]))
		}
		return s + ":" + strings.Join(parts, ",")
	}
	s += ":" + strconv.FormatFloat(d.Param, 'f', -1, 64)
	if d.HasCenter {
		s += ":" + strconv.FormatFloat(d.Center, 'f', -1, 64)
	}
	return s
}

func zonesString(k blockbench.DistKind, zs []blockbench.DistZone) string {
	var b []string
	for _, z := range zs {
		if k == blockbench.DistZonedAbs {
			b = append(b, strconv.Itoa(z.AccessPct)+"/"+sizeString(z.Size))
		} else {
			b = append(b, strconv.Itoa(z.AccessPct)+"/"+strconv.Itoa(z.SizePct))
		}
	}
	return strings.Join(b, ":")
}

// sizeString writes n as fio's size options take it: the largest of k, m,
// g and t (powers of 1024) that divides it, else bytes.
func sizeString(n int64) string {
	for _, u := range []struct {
		shift  uint
		suffix string
	}{{40, "t"}, {30, "g"}, {20, "m"}, {10, "k"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// durationString writes d as fio's time options take it: whole seconds as
// a bare number, anything else with a unit.
func durationString(d time.Duration) string {
	switch {
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10)
	case d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	}
	return strconv.FormatInt(int64(d/time.Microsecond), 10) + "us"
}

func boolOpt(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
