package blockbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/procs"
	"github.com/clydebench/clyde/result"
)

// step is one job of a run: a plain job per block size, or one pass of one
// profile row.
type step struct {
	spec   jobSpec
	row    int  // profile row, -1 for a plain job
	warmup bool // CDM's uncounted first pass
}

// Run validates j, prepares the target (safety checks, creating and filling
// an absent file), runs every job in order, and cleans up. On interruption
// it returns what finished, with Interrupted set, and an error wrapping the
// context's cause. Provenance is left for the caller to fill.
func Run(ctx context.Context, j Job) (result.Block, error) {
	res := result.Block{SchemaVersion: result.SchemaVersion, Kind: "block"}
	if err := j.Validate(); err != nil {
		return res, err
	}
	t, reg, err := resolveTarget(&j)
	if err != nil {
		return res, err
	}
	steps, table, err := plan(&j, reg)
	if err != nil {
		return res, err
	}
	writes := false
	for i := range steps {
		if err := checkStep(&steps[i].spec, reg); err != nil {
			return res, err
		}
		writes = writes || steps[i].spec.rw.Writes()
	}
	if err := resolveEngines(steps); err != nil {
		return res, err
	}
	for i := range steps {
		s := &steps[i].spec
		if err := checkFootprint(s.bs, s.ioDepth, s.numJobs, s.engine); err != nil {
			return res, err
		}
	}
	started := time.Now()
	res.Timestamp, res.TimestampMs = started.Unix(), started.UnixMilli()
	if err := t.prepare(ctx, writes, j.DestroyData, j.Buffer, j.Seed); err != nil {
		err = errors.Join(err, t.cleanup())
		res.Notes = append(res.Notes, t.notes...)
		return res, err
	}
	runErr := runSteps(ctx, t, steps, &res)
	res.Target = t.describe()
	if table != nil {
		res.Profile = table.finish(steps, res.Jobs)
	}
	cerr := t.cleanup()
	res.Notes = append(res.Notes, t.notes...)
	if cerr != nil {
		res.Notes = append(res.Notes, "cleanup: "+cerr.Error())
		runErr = errors.Join(runErr, cerr)
	}
	return res, runErr
}

func runSteps(ctx context.Context, t *target, steps []step, res *result.Block) error {
	for i := range steps {
		if err := ctx.Err(); err != nil {
			res.Interrupted = true
			return fmt.Errorf("before job %d of %d: %w", i+1, len(steps), context.Cause(ctx))
		}
		job, err := runJob(ctx, t, &steps[i].spec)
		if err == nil && !job.Interrupted && job.Read.TotalIOs+job.Write.TotalIOs == 0 {
			// Zeros would read as a measurement; there was none.
			err = fmt.Errorf("completed no I/O in its runtime of %v; give a longer --runtime", steps[i].spec.runtime)
			res.Error = err.Error()
			return fmt.Errorf("job %s: %w", steps[i].spec.name, err)
		}
		res.Jobs = append(res.Jobs, job)
		if err != nil {
			res.Error = err.Error()
			return fmt.Errorf("job %s: %w", steps[i].spec.name, err)
		}
		if job.Interrupted {
			res.Interrupted = true
			return fmt.Errorf("job %s: %w", steps[i].spec.name, context.Cause(ctx))
		}
	}
	return nil
}

// checkStep holds the rules that need the resolved region.
func checkStep(s *jobSpec, reg region) error {
	s.offset, s.size = reg.offset, reg.size
	if s.bs > s.size {
		return result.Usagef("--bs", "%d is larger than the region of %d bytes; give a smaller --bs or a larger --size", s.bs, s.size)
	}
	if s.direct && s.bs%DirectAlign != 0 {
		return result.Usagef("--bs", "%d is not a multiple of %d, which --direct needs", s.bs, DirectAlign)
	}
	return nil
}

// resolveEngines turns auto into a concrete engine and makes sure the chosen
// one exists here, before anything is created.
func resolveEngines(steps []step) error {
	for i := range steps {
		s := &steps[i].spec
		if s.engine == EngineAuto {
			s.engine = EnginePsync
			if s.ioDepth > 1 && uringAvailable() == nil {
				s.engine = EngineIOUring
			}
		}
		if s.engine == EngineIOUring {
			if err := uringAvailable(); err != nil {
				return fmt.Errorf("--ioengine io_uring: %w", err)
			}
		}
	}
	return nil
}

// plainSteps is one job per block size.
func plainSteps(j *Job) []step {
	steps := make([]step, 0, len(j.BlockSizes))
	for _, bs := range j.BlockSizes {
		s := specFrom(j, j.RW, bs)
		steps = append(steps, step{spec: s, row: -1})
	}
	return steps
}

func specFrom(j *Job, rw RW, bs int64) jobSpec {
	name := j.Name
	if name == "" {
		name = string(rw)
	}
	if len(j.BlockSizes) > 1 || j.Profile != ProfileNone {
		name += "-" + sizeLabel(bs)
	}
	return jobSpec{
		name: name, rw: rw, rwMixRead: j.RWMixRead, bs: bs, ioDepth: j.IODepth, numJobs: j.NumJobs,
		engine: j.IOEngine, direct: j.Direct, runtime: j.Runtime, rampTime: j.RampTime, timeBased: j.TimeBased,
		buffer: j.Buffer, fsync: j.Fsync, seed: j.Seed,
	}
}

// sizeLabel prints a block size the way fio's job names and CDM's rows do: 4k, 1m.
func sizeLabel(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "m"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// runJob starts the job's workers together off one closed channel, waits for
// them, and merges what they measured.
func runJob(ctx context.Context, t *target, spec *jobSpec) (result.BlockJob, error) {
	workers := make([]*worker, 0, spec.numJobs)
	defer func() {
		for _, w := range workers {
			w.close()
		}
	}()
	for i := range spec.numJobs {
		h, err := t.openWorker(spec.rw.Writes(), spec.direct)
		if err != nil {
			return result.BlockJob{}, fmt.Errorf("open %s for worker %d: %w", t.resolved, i, err)
		}
		w := newWorker(ctx, spec, i, h)
		workers = append(workers, w)
		if spec.engine == EngineIOUring {
			if err := w.setupURing(); err != nil {
				return result.BlockJob{}, fmt.Errorf("io_uring for worker %d: %w", i, err)
			}
		}
	}
	// Each worker blocks in its I/O; each gets a processor of its own, as
	// each fio job has its own process (see internal/procs).
	defer procs.Reserve(len(workers))()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			<-start
			if spec.engine == EngineIOUring {
				w.runURing()
			} else {
				w.runPsync()
			}
			w.finish()
		})
	}
	base := time.Now()
	for _, w := range workers {
		w.base = base
	}
	close(start)
	measureFrom := base
	if spec.rampTime > 0 {
		measureFrom = base.Add(spec.rampTime)
		timer := time.NewTimer(spec.rampTime)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
		}
	}
	sw := cpuclock.StartAt(measureFrom)
	wg.Wait()
	cpu := sw.Stop()
	stats := make([]*workerStats, len(workers))
	var errs []error
	for i, w := range workers {
		stats[i] = &w.workerStats
		if w.err != nil {
			errs = append(errs, fmt.Errorf("worker %d: %w", i, w.err))
		}
	}
	return summarize(spec, stats, cpu), errors.Join(errs...)
}

// summarize merges the workers' figures into one job, as fio's
// group_reporting does: counts summed, runtime the longest.
func summarize(spec *jobSpec, stats []*workerStats, cpu cpuclock.Sample) result.BlockJob {
	job := result.BlockJob{JobName: spec.name, Options: spec.options(), Config: spec.config()}
	startNs, endNs := int64(math.MaxInt64), int64(0)
	recs := [2]*latency.Recorder{latency.New(), latency.New()}
	var ios, bytes, short [2]int64
	for _, s := range stats {
		job.Interrupted = job.Interrupted || s.interrupted
		job.Syncs += s.syncs
		if len(s.marks) == 0 {
			continue // never left the ramp
		}
		startNs, endNs = min(startNs, s.startNs), max(endNs, s.endNs)
		for d := range 2 {
			recs[d].Merge(s.lat[d])
			ios[d] += s.ios[d]
			bytes[d] += s.bytes[d]
			short[d] += s.short[d]
		}
	}
	if endNs == 0 {
		return job
	}
	elapsed := endNs - startNs
	job.ElapsedNs = elapsed
	job.JobRuntime = elapsed / 1e6
	job.Series = mergeSeries(stats, startNs)
	dirs := [2]*result.BlockDir{&job.Read, &job.Write}
	for d, out := range dirs {
		if ios[d] == 0 {
			continue
		}
		out.TotalIOs, out.IOBytes, out.ShortIOs = ios[d], bytes[d], short[d]
		out.IOKBytes = bytes[d] >> 10
		out.Runtime, out.RuntimeNs = elapsed/1e6, elapsed
		if elapsed > 0 {
			out.IOPS = float64(ios[d]) * 1e9 / float64(elapsed)
			out.BWBytes = int64(math.Round(float64(bytes[d]) * 1e9 / float64(elapsed)))
			out.BW = out.BWBytes >> 10
		}
		out.Lat = result.LatNsFrom(recs[d], latency.FioPercentiles)
		sampleStats(out, job.Series, d)
	}
	if cpu.CPUKnown && cpu.Elapsed > 0 {
		job.CPUKnown = true
		job.UsrCPU = float64(cpu.CPU.User) / float64(cpu.Elapsed) * 100
		job.SysCPU = float64(cpu.CPU.Sys) / float64(cpu.Elapsed) * 100
	}
	job.Trend = trendOf(job.Series)
	return job
}

// mergeSeries adds the workers' per-second marks slot by slot.
func mergeSeries(stats []*workerStats, startNs int64) []result.BlockSample {
	var out []result.BlockSample
	for _, s := range stats {
		for k := 1; k < len(s.marks); k++ {
			prev, cur := s.marks[k-1], s.marks[k]
			if k > len(out) {
				out = append(out, result.BlockSample{StartMs: (prev.atNs - startNs) / 1e6})
			}
			o := &out[k-1]
			o.DurationNs = max(o.DurationNs, cur.atNs-prev.atNs)
			o.ReadIOs += cur.ios[dirRead] - prev.ios[dirRead]
			o.WriteIOs += cur.ios[dirWrite] - prev.ios[dirWrite]
			o.ReadBytes += cur.bytes[dirRead] - prev.bytes[dirRead]
			o.WriteBytes += cur.bytes[dirWrite] - prev.bytes[dirWrite]
		}
	}
	for i := range out {
		o := &out[i]
		if o.DurationNs > 0 {
			o.IOPS = float64(o.ReadIOs+o.WriteIOs) * 1e9 / float64(o.DurationNs)
			o.BWBytes = int64(math.Round(float64(o.ReadBytes+o.WriteBytes) * 1e9 / float64(o.DurationNs)))
		}
	}
	return out
}

// wholeSamples drops a closing sample shorter than half a second, whose rate
// would be noise.
func wholeSamples(series []result.BlockSample) []result.BlockSample {
	if n := len(series); n > 1 && series[n-1].DurationNs < markEvery/2 {
		return series[:n-1]
	}
	return series
}

// sampleStats fills fio's bw_*/iops_* sample statistics for one direction.
func sampleStats(out *result.BlockDir, series []result.BlockSample, dir int) {
	samples := wholeSamples(series)
	if len(samples) == 0 {
		return
	}
	var sumI, sumSqI, sumB, sumSqB float64
	out.IOPSMin, out.BWMin = math.MaxInt64, math.MaxInt64
	for _, s := range samples {
		ios, bytes := s.ReadIOs, s.ReadBytes
		if dir == dirWrite {
			ios, bytes = s.WriteIOs, s.WriteBytes
		}
		secs := float64(s.DurationNs) / 1e9
		iops, bw := float64(ios)/secs, float64(bytes)/secs/1024 // fio's bw_* samples are KiB/s
		out.IOPSMin, out.IOPSMax = min(out.IOPSMin, int64(iops)), max(out.IOPSMax, int64(iops))
		out.BWMin, out.BWMax = min(out.BWMin, int64(bw)), max(out.BWMax, int64(bw))
		sumI, sumSqI, sumB, sumSqB = sumI+iops, sumSqI+iops*iops, sumB+bw, sumSqB+bw*bw
	}
	n := float64(len(samples))
	out.IOPSSamples, out.BWSamples = len(samples), len(samples)
	out.IOPSMean, out.BWMean = sumI/n, sumB/n
	out.IOPSStddev = math.Sqrt(max(0, sumSqI/n-out.IOPSMean*out.IOPSMean))
	out.BWDev = math.Sqrt(max(0, sumSqB/n-out.BWMean*out.BWMean))
}

// trendOf compares the mean IOPS of the last 10% of samples with the first 10%.
func trendOf(series []result.BlockSample) result.BlockTrend {
	samples := wholeSamples(series)
	tr := result.BlockTrend{Samples: len(samples)}
	if len(samples) < 2 {
		return tr
	}
	k := max(1, len(samples)/10)
	mean := func(s []result.BlockSample) float64 {
		var sum float64
		for _, x := range s {
			sum += x.IOPS
		}
		return sum / float64(len(s))
	}
	tr.FirstIOPS, tr.LastIOPS = mean(samples[:k]), mean(samples[len(samples)-k:])
	if tr.FirstIOPS > 0 {
		tr.Known = true
		tr.DropPct = (tr.FirstIOPS - tr.LastIOPS) / tr.FirstIOPS * 100
	}
	return tr
}

func (s *jobSpec) options() map[string]string {
	m := map[string]string{
		"name": s.name, "rw": string(s.rw), "bs": strconv.FormatInt(s.bs, 10),
		"size": strconv.FormatInt(s.size, 10), "offset": strconv.FormatInt(s.offset, 10),
		"iodepth": strconv.Itoa(s.ioDepth), "numjobs": strconv.Itoa(s.numJobs), "ioengine": string(s.engine),
		"direct": boolFlag(s.direct), "runtime": s.runtime.String(), "ramp_time": s.rampTime.String(),
		"time_based": boolFlag(s.timeBased), "buffer": s.buffer.String(), "randseed": strconv.FormatUint(s.seed, 10),
	}
	if s.rw.Mixed() {
		m["rwmixread"] = strconv.Itoa(s.rwMixRead)
	}
	if s.fsync > 0 {
		m["fsync"] = strconv.Itoa(s.fsync)
	}
	return m
}

func boolFlag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func (s *jobSpec) config() result.BlockJobConfig {
	return result.BlockJobConfig{
		RW: string(s.rw), RWMixRead: s.rwMixRead, BSBytes: s.bs, SizeBytes: s.size, OffsetBytes: s.offset,
		IODepth: s.ioDepth, NumJobs: s.numJobs, IOEngine: string(s.engine), Direct: s.direct,
		RuntimeNs: int64(s.runtime), RampTimeNs: int64(s.rampTime), TimeBased: s.timeBased,
		Buffer: s.buffer.String(), Fsync: s.fsync, Seed: s.seed,
	}
}
