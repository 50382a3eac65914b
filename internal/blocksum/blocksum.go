// Package blocksum turns a block job's measured figures into its result and
// merges results: one job's directions and per-second series from its
// workers' counters, a reporting group's sum (fio's "Run status group"),
// and fio-style merging of many ranks' results into the job's ("All
// clients"). It works on result types and plain counters only: blockbench
// measures, and hands the figures here.
package blocksum

import (
	"math"
	"time"

	"github.com/clydebench/clyde/result"
)

// Shaper fills the fields of block results that depend on a sum: the part
// of a peer format's hook (blockbench.Shaper, fiojob.Shape) that the sums
// call. A nil Shaper leaves those fields empty.
type Shaper interface {
	// Group fills the fields of one reporting group's jobs that depend on
	// the group's sum, g.
	Group(g *result.BlockGroup, jobs []*result.BlockJob)
	// Merge fills the fields of m, one job summed over ranks
	// (MergeRanks), from the ranks' own jobs, parts; m holds the summed
	// figures and, until Merge sets them, rank 0's fields of the shape.
	Merge(m *result.BlockJob, parts []result.BlockJob) error
}

// Mark is a worker's cumulative counters at one instant, AtNs in ns of
// its clock; consecutive marks give the per-second series.
type Mark struct {
	AtNs       int64
	IOs, Bytes [2]int64
}

// Rates sets d's runtime and the rates over it from its I/Os and bytes:
// every sum (a job's workers, a group's jobs, the ranks) takes its rates
// over its longest runtime. A runtime of 0 leaves the rates 0.
func Rates(d *result.BlockDir, runtimeNs int64) {
	d.IOKBytes = d.IOBytes >> 10
	d.Runtime, d.RuntimeNs = runtimeNs/1e6, runtimeNs
	if runtimeNs > 0 {
		d.IOPS = float64(d.TotalIOs) * 1e9 / float64(runtimeNs)
		d.BWBytes = int64(math.Round(float64(d.IOBytes) * 1e9 / float64(runtimeNs)))
		d.BW = d.BWBytes >> 10
	}
}

// Dir sets one direction of a job from its workers' summed I/Os, bytes and
// short I/Os over the job's elapsed time (a job leaves a direction without
// I/O empty).
func Dir(d *result.BlockDir, ios, bytes, short, elapsedNs int64) {
	d.TotalIOs, d.IOBytes, d.ShortIOs = ios, bytes, short
	Rates(d, elapsedNs)
}

// Series adds the workers' marks second by second (perSample mark windows
// a sample), slot by slot, from startNs; the last sample ends at the last
// mark. A closing slice shorter than half a second joins the sample before
// it: a few microseconds of I/O after the last whole second would be a
// rate of noise (31 I/Os in 11 us is 2.8M IOPS on a 170k IOPS test) that
// the series, its trend and the page's axis would show as the run's peak.
func Series(workers [][]Mark, startNs int64, perSample int) []result.BlockSample {
	var out []result.BlockSample
	for _, marks := range workers {
		for slot, k := 0, 0; k < len(marks)-1; slot++ {
			next := min(k+perSample, len(marks)-1)
			prev, cur := marks[k], marks[next]
			k = next
			if slot >= len(out) {
				out = append(out, result.BlockSample{StartMs: (prev.AtNs - startNs) / 1e6})
			}
			o := &out[slot]
			o.DurationNs = max(o.DurationNs, cur.AtNs-prev.AtNs)
			o.ReadIOs += cur.IOs[0] - prev.IOs[0]
			o.WriteIOs += cur.IOs[1] - prev.IOs[1]
			o.ReadBytes += cur.Bytes[0] - prev.Bytes[0]
			o.WriteBytes += cur.Bytes[1] - prev.Bytes[1]
		}
	}
	out = joinClosingSlice(out)
	for i := range out {
		o := &out[i]
		if o.DurationNs > 0 {
			o.IOPS = float64(o.ReadIOs+o.WriteIOs) * 1e9 / float64(o.DurationNs)
			o.BWBytes = int64(math.Round(float64(o.ReadBytes+o.WriteBytes) * 1e9 / float64(o.DurationNs)))
		}
	}
	return out
}

// joinClosingSlice adds a last sample shorter than half a second to the
// one before it (Series).
func joinClosingSlice(out []result.BlockSample) []result.BlockSample {
	n := len(out)
	if n < 2 || out[n-1].DurationNs >= int64(time.Second)/2 {
		return out
	}
	last, prev := out[n-1], &out[n-2]
	prev.DurationNs += last.DurationNs
	prev.ReadIOs += last.ReadIOs
	prev.WriteIOs += last.WriteIOs
	prev.ReadBytes += last.ReadBytes
	prev.WriteBytes += last.WriteBytes
	return out[:n-1]
}

// Trend compares the mean IOPS of the last 10% of samples with the first
// 10%.
func Trend(series []result.BlockSample) result.BlockTrend {
	samples := series // Series leaves no closing slice of noise
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
