package blockbench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// This file fills the parts of a job's result that exist for fio's
// readers: fio's 500 ms sample statistics, the queue-depth and latency
// distributions, bw_agg, the sync direction, and the job options in fio's
// syntax.

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

// fioLevels bins a worker's counts into fio's seven buckets (bucket is
// depthBucket or batchBucket).
func fioLevels(h countHist, bucket func(int) int) [7]int64 {
	var b [7]int64
	for n, c := range h {
		if c != 0 {
			b[bucket(n)] += c
		}
	}
	return b
}

// refill regenerates a write buffer (refill_buffers, or the verify= block for
// the offset just drawn); it does not allocate.
func (w *worker) refill(buf []byte) {
	if w.verify != nil {
		w.verify.fill(buf, w.now())
		return
	}
	fillBuffer(buf, w.spec.Buffer, w.fill)
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

// fioJobFields fills what only fio's readers look at: the depth
// distributions and fio's latency buckets of the clat histograms (context
// switches and faults are setJobCPU's).
func fioJobFields(wl *workload, workers []*worker, recs []*latency.Recorder) result.BlockJobFio {
	f := result.BlockJobFio{LatencyDepth: wl.depth, LatencyPercentile: 100}
	var depth, reaps [7]int64
	var ios int64
	for _, w := range workers {
		ios += w.ios[dirRead] + w.ios[dirWrite]
		wd, wr := fioLevels(w.inflight, depthBucket), fioLevels(w.reaped, batchBucket)
		for i := range depth {
			depth[i] += wd[i]
			reaps[i] += wr[i]
		}
	}
	if !wl.engine.queues() {
		// One I/O per call, submitted and completed in it.
		depth, reaps = [7]int64{ios}, [7]int64{0, ios}
	}
	// What each io_uring_enter / io_submit took (fio's io_u_mark_submit);
	// an engine that counts none submits one I/O per call.
	var submits [7]int64
	for _, w := range workers {
		for i, c := range fioLevels(w.submitted, batchBucket) {
			submits[i] += c
		}
	}
	if !wl.engine.queues() || sum(submits[:]) == 0 {
		submits = [7]int64{0, sum(depth[:])}
	}
	f.IODepthLevel = dist(depthLabels, depth[:], sum(depth[:]), 0.1)
	f.IODepthSubmit = dist(batchLabels, submits[:], sum(submits[:]), 0.1)
	f.IODepthComplete = dist(batchLabels, reaps[:], sum(reaps[:]), 0.1)
	counts := make([]int64, len(latEdges)+1)
	for d := range 2 {
		for i, c := range recs[recClat+d].CountsBelow(latEdges) {
			counts[i] += c
		}
	}
	total := sum(counts)
	f.LatencyNs = dist(latLabels, counts[0:10], total, 0.01)
	f.LatencyUs = dist(latLabels, counts[10:20], total, 0.01)
	f.LatencyMs = dist(append(latLabels[:10:10], "2000", ">=2000"), counts[20:32], total, 0.01)
	return f
}

// percentiles are the points the workload's latency objects report.
func (w *workload) percentiles() []float64 {
	if len(w.Report.PercentileList) == 0 {
		return latency.FioPercentiles
	}
	ps := slices.Clone(w.Report.PercentileList)
	slices.Sort(ps)
	return slices.Compact(ps)
}

// latencyObjects fills slat_ns, clat_ns and lat_ns of one direction, each
// with percentiles where fio's options put them.
func (w *workload) latencyObjects(out *result.BlockDir, recs []*latency.Recorder, d int) {
	ps := w.percentiles()
	pick := func(on bool) []float64 {
		if on {
			return ps
		}
		return nil
	}
	out.Lat = result.LatNsFrom(recs[recLat+d], pick(w.Report.LatPercentiles))
	out.Clat = result.LatNsFrom(recs[recClat+d], pick(!w.Report.NoClatPercentiles))
	if recs[recSlat+d].Count() > 0 {
		out.Slat = result.LatNsFrom(recs[recSlat+d], pick(w.Report.SlatPercentiles))
	}
}

// syncDir is fio's sync direction: fsync calls and their latency, with
// percentiles as fio gives them (clat or lat percentiles on).
// fsyncs is the count of fsync calls alone: fdatasync calls are timed
// with them but not counted in total_ios (syncopts.go).
func (w *workload) syncDir(rec *latency.Recorder, fsyncs int64) result.BlockSyncDir {
	var ps []float64
	if !w.Report.NoClatPercentiles || w.Report.LatPercentiles {
		ps = w.percentiles()
	}
	return result.BlockSyncDir{TotalIOs: fsyncs, Lat: result.LatNsFrom(rec, ps)}
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

// fioSampleStats fills bw_* and iops_* of one direction as fio computes
// them: per worker, one sample per 500 ms window that moved data (bw in
// KiB/s and IOPS, both in whole units over the window's whole
// milliseconds), a closing window shorter than half a window left out;
// the workers' statistics then summed as fio's group_reporting sums clones.
func fioSampleStats(out *result.BlockDir, workers []*worker, dir int) {
	var bw, iops sampleAcc
	for _, w := range workers {
		var wbw, wiops sampleAcc
		for k := 1; k < len(w.marks); k++ {
			prev, cur := w.marks[k-1], w.marks[k]
			span := cur.atNs - prev.atNs
			bytes := cur.bytes[dir] - prev.bytes[dir]
			if bytes == 0 || span < markEvery/2 {
				continue
			}
			spentMs := span / int64(time.Millisecond)
			wbw.add(bytes * 1000 / spentMs / 1024)
			wiops.add((cur.ios[dir] - prev.ios[dir]) * 1000 / spentMs)
		}
		bw.addPure(wbw)
		iops.addPure(wiops)
	}
	out.BWMin, out.BWMax, out.BWMean, out.BWDev, out.BWSamples = bw.min, bw.max, bw.mean, bw.dev(), int(bw.n)
	out.IOPSMin, out.IOPSMax, out.IOPSMean, out.IOPSStddev, out.IOPSSamples = iops.min, iops.max, iops.mean, iops.dev(), int(iops.n)
}

// setBWAgg fills bw_agg of every job of one reporting group: the job's
// bw_mean in percent of the group's bandwidth (its bytes over its longest
// runtime), at most 100, as fio's convert_agg_kbytes_percent.
func setBWAgg(jobs []*result.BlockJob, g *result.BlockGroup) {
	for _, j := range jobs {
		for d, out := range []*result.BlockDir{&j.Read, &j.Write} {
			agg := [2]*result.BlockDir{&g.Read, &g.Write}[d].BWBytes
			switch {
			case out.BWSamples == 0:
				out.BWAgg = 0
			case agg <= 1024:
				out.BWAgg = 100
			default:
				out.BWAgg = min(100, float64(int64(out.BWMean))*100/(float64(agg)/1024))
			}
		}
	}
}

// reportGroups sums the jobs of one run group (jobs[k] is res.Jobs[first+k])
// by reporting group, as fio's "Run status group": a group of one job gets
// bw_agg but no entry in groups.
func reportGroups(jobs []result.BlockJob, first int) []result.BlockGroup {
	var out []result.BlockGroup
	for start := 0; start < len(jobs); {
		end := start + 1
		for end < len(jobs) && jobs[end].GroupID == jobs[start].GroupID {
			end++
		}
		g := sumGroup(jobs[start].GroupID, jobs[start:end], first+start)
		members := make([]*result.BlockJob, 0, end-start)
		for k := start; k < end; k++ {
			members = append(members, &jobs[k])
		}
		setBWAgg(members, &g)
		if end-start > 1 {
			out = append(out, g)
		}
		start = end
	}
	return out
}

// fioOptions is the workload as it ran in fio's option syntax: sizes as
// "4k"/"1g", times in seconds ("5", "500ms" when not whole), flags as 0/1,
// iodepth and ioengine what ran, data options by fio's names.
func (w *workload) fioOptions() map[string]string {
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
	set("bs", fioSize(w.BS))
	set("size", fioSize(w.Size))
	set("offset", fioSize(w.Offset))
	set("iodepth", strconv.Itoa(w.depth))
	if _, clone := w.Options["numjobs"]; !clone || w.NumJobs > 1 {
		// A job file's clone (one workload of fio's numjobs) echoes the
		// job's numjobs, as fio's job options do.
		set("numjobs", strconv.Itoa(w.NumJobs))
	}
	set("ioengine", string(w.engine.name()))
	set("direct", boolFlag(w.Direct))
	set("runtime", fioDuration(w.Runtime))
	set("ramp_time", fioDuration(w.RampTime))
	set("time_based", boolFlag(w.TimeBased))
	set("randseed", strconv.FormatUint(w.Seed, 10))
	switch w.Buffer.Kind {
	case BufferZero:
		set("zero_buffers", "1")
	case BufferCompressible:
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
	if w.Verify != VerifyNone {
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
		var s []byte
		for i, p := range w.percentiles() {
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
	w.distOptions(set)
	return m
}

// fioSize writes n as fio's size options take it: the largest of k, m, g
// and t (powers of 1024) that divides it, else bytes.
func fioSize(n int64) string {
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

// fioDuration writes d as fio's time options take it: whole seconds as a
// bare number, anything else with a unit.
func fioDuration(d time.Duration) string {
	switch {
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10)
	case d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	}
	return strconv.FormatInt(int64(d/time.Microsecond), 10) + "us"
}

// maxPercentiles is fio's FIO_IO_U_LIST_MAX_LEN: the most points
// percentile_list takes.
const maxPercentiles = 20

// setElapsed fills fio's eta and elapsed of every job: the run is over, and
// it took this many whole seconds (rounded up, as fio's clock shows them).
func setElapsed(res *result.Block, started time.Time) {
	secs := int64((time.Since(started) + time.Second - 1) / time.Second)
	for i := range res.Jobs {
		res.Jobs[i].Eta, res.Jobs[i].Elapsed = 0, secs
	}
}

// invalidate drops the cached pages of the files the group's workloads
// ask it for (fio's invalidate), once per file, before the group starts,
// and returns a note for each file whose pages stayed (tmpfs keeps them)
// or that could not be checked. A block device is not invalidated: fio
// flushes its buffers with an ioctl clyde does not issue; a note says so
// for buffered I/O on one.
func invalidate(ws []*workload) []string {
	var notes []string
	done := map[*target]bool{}
	for _, w := range ws {
		t := w.target
		if !w.Invalidate || w.Direct || done[t] || !t.file.Valid() {
			continue
		}
		done[t] = true
		if t.device {
			notes = append(notes, fmt.Sprintf("job %s: invalidate: the page cache of block device %s is not dropped; give direct=1 for reads from the device", w.Name, t.resolved))
			continue
		}
		st := osio.EvictPageCache(t.file, t.size)
		switch {
		case st.Error != "":
			notes = append(notes, fmt.Sprintf("job %s: invalidate %s: %s", w.Name, t.resolved, st.Error))
		case !st.Cold:
			notes = append(notes, fmt.Sprintf("job %s: invalidate: %d of %d bytes of %s stayed in the page cache (tmpfs keeps them), so buffered reads are from memory",
				w.Name, st.ResidentBytes, st.FileBytes, t.resolved))
		}
	}
	return notes
}

// dropCache is osio.DropCache; a test counts the calls through it.
var dropCache = osio.DropCache

// dropPass drops the file's cached pages at the end of a pass (see
// worker.dropEvery), inside the measured time as fio's reopen is.
func (w *worker) dropPass() {
	if err := dropCache(w.h); err != nil {
		w.fail(fmt.Errorf("invalidate after a pass: %w", err))
	}
	for w.nextDrop <= w.ios[dirRead]+w.ios[dirWrite] {
		w.nextDrop += w.dropEvery
	}
}
