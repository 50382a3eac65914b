package iometer

import (
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// finish sums each test's jobs as Iometer's "ALL" line does.
func (s *Setup) finish(tests []plannedTest, res *result.Block) (*result.BlockIometer, *result.BlockProfile) {
	out := &result.BlockIometer{Source: s.Source, Description: s.Description, RunTimeNs: int64(s.Runtime), RampTimeNs: int64(s.RampTime),
		Cycling: s.Cycle.String(), Ignored: s.Ignored,
		CPUScope: "clyde's own process (user + system time of every thread, io_uring's kernel workers included) over all CPUs; " +
			"Iometer's counts every process on the machine"}
	prof := &result.BlockProfile{Name: s.Profile}
	next := 0
	cpus := max(1, res.Provenance.CPUs)
	for _, t := range tests {
		if next+len(t.workers) > len(res.Jobs) {
			break // the run stopped before this test
		}
		sum := s.sumTest(t, res.Jobs[next:next+len(t.workers)], next, cpus)
		next += len(t.workers)
		out.Tests = append(out.Tests, sum.it)
		prof.Rows = append(prof.Rows, s.profileRow(t, &sum))
	}
	return out, prof
}

// testSum is one test's jobs summed: Iometer's line, and the latencies of
// all its I/Os, of its reads and of its writes.
type testSum struct {
	it                 result.BlockIometerTest
	all, reads, writes *latency.Recorder
	runtimeNs          int64 // the longest job's
}

// sumTest sums the jobs of test t, the first of which is job first of the
// result, over cpus CPUs.
func (s *Setup) sumTest(t plannedTest, jobs []result.BlockJob, first, cpus int) testSum {
	w := s.Workers[t.workers[0]]
	sum := testSum{it: result.BlockIometerTest{AccessSpec: s.specName(t), Workers: len(t.workers), OutstandingIOs: s.depthOf(t, t.workers[0]),
		StartingSector: w.Offset / SectorSize, MaximumSize: w.Size / SectorSize},
		all: latency.New(), reads: latency.New(), writes: latency.New()}
	for k := range jobs {
		sum.add(&jobs[k], first+k)
		if p := jobs[k].ProcessCPU; k == 0 && p != nil {
			// Every job of a group carries the process's CPU over the
			// group's window; Iometer's figure is the machine's, not a
			// worker's, so the jobs' own (per-thread) figures are not it.
			it := &sum.it
			it.CPUKnown, it.CPUPct = true, (p.UsrCPU+p.SysCPU)/float64(cpus)
			it.CPUUserPct, it.CPUPrivilegedPct = p.UsrCPU/float64(cpus), p.SysCPU/float64(cpus)
		}
	}
	sum.setRates()
	it := &sum.it
	it.AvgResponseMs, it.MaxResponseMs = meanMaxMs(sum.all)
	it.AvgReadResponseMs, it.MaxReadResponseMs = meanMaxMs(sum.reads)
	it.AvgWriteResponseMs, it.MaxWriteResponseMs = meanMaxMs(sum.writes)
	// The bins start at 0: the edges between them are the rest.
	edges := make([]int64, 0, len(result.IometerLatencyBins))
	for _, b := range result.IometerLatencyBins[1:] {
		edges = append(edges, b.FromNs)
	}
	it.LatencyBins = sum.all.CountsBelow(edges)
	return sum
}

// add counts job j, job k of the result, into the test.
func (sum *testSum) add(j *result.BlockJob, k int) {
	it := &sum.it
	it.Jobs = append(it.Jobs, k)
	it.ReadIOs += j.Read.TotalIOs
	it.WriteIOs += j.Write.TotalIOs
	it.BytesRead += j.Read.IOBytes
	it.BytesWritten += j.Write.IOBytes
	it.Errors += j.Read.ShortIOs + j.Write.ShortIOs
	sum.runtimeNs = max(sum.runtimeNs, j.ElapsedNs)
	for _, d := range []struct {
		l   result.LatNs
		rec *latency.Recorder
	}{{j.Read.Lat, sum.reads}, {j.Write.Lat, sum.writes}} {
		if r, err := d.l.Recorder(); err == nil {
			d.rec.Merge(r)
			sum.all.Merge(r)
		}
	}
}

// setRates turns the test's counts into rates over its longest job.
func (sum *testSum) setRates() {
	if sum.runtimeNs <= 0 {
		return
	}
	it := &sum.it
	secs := float64(sum.runtimeNs) / 1e9
	it.ReadIOPS, it.WriteIOPS = float64(it.ReadIOs)/secs, float64(it.WriteIOs)/secs
	it.IOPS = it.ReadIOPS + it.WriteIOPS
	rb, wb := float64(it.BytesRead)/secs, float64(it.BytesWritten)/secs
	it.ReadMBpsDecimal, it.WriteMBpsDecimal, it.MBpsDecimal = rb/1e6, wb/1e6, (rb+wb)/1e6
	it.ReadMBpsBinary, it.WriteMBpsBinary, it.MBpsBinary = rb/(1<<20), wb/(1<<20), (rb+wb)/(1<<20)
}

// profileRow is the test as a row of the profile table.
func (s *Setup) profileRow(t plannedTest, sum *testSum) result.BlockProfileRow {
	it := &sum.it
	spec := &s.Specs[s.Workers[t.workers[0]].Specs[t.slot]]
	row := result.BlockProfileRow{Label: it.AccessSpec, RW: string(spec.rw()), RWMixRead: spec.readShare(), BSBytes: spec.maxSize(),
		IODepth: it.OutstandingIOs, NumJobs: it.Workers, Jobs: it.Jobs, IOPS: it.IOPS,
		BWBytes: it.BytesRead + it.BytesWritten, ReadIOPS: it.ReadIOPS, WriteIOPS: it.WriteIOPS,
		MeanLatNs: it.AvgResponseMs * 1e6, ReadMeanNs: it.AvgReadResponseMs * 1e6, ReadMaxNs: int64(it.MaxReadResponseMs * 1e6),
		WriteMeanNs: it.AvgWriteResponseMs * 1e6, WriteMaxNs: int64(it.MaxWriteResponseMs * 1e6), P99LatNs: sum.all.PercentileNs(99)}
	if sum.runtimeNs > 0 {
		row.BWBytes = int64(float64(row.BWBytes) * 1e9 / float64(sum.runtimeNs))
	}
	return row
}

func meanMaxMs(r *latency.Recorder) (mean, maxMs float64) {
	s := r.Summary()
	return s.MeanNs / 1e6, float64(s.MaxNs) / 1e6
}
