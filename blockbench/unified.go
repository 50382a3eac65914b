package blockbench

import (
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// setMixed fills a job's "mixed" direction when its workload asks for
// fio's unified_rw_reporting: as fio 3.33's sum_thread_stats sums a job's
// directions into one (stat.c, UNIFIED_MIXED; gen_mixed_ddir_stats_from_ts
// for both), the I/Os and bytes summed over read, write and trim, the
// runtime the longest direction's, the latencies merged from the workers'
// histograms; the sample statistics are the shape's to sum (fio's pure
// sums of the directions'). recs are the entry's merged recorders.
func (w *workload) setMixed(job *result.BlockJob, recs []*latency.Recorder) {
	if w.Report.Unified == UnifiedNone {
		return
	}
	m := &result.BlockDir{}
	for _, d := range []*result.BlockDir{&job.Read, &job.Write, &job.Trim} {
		m.TotalIOs += d.TotalIOs
		m.IOBytes += d.IOBytes
		m.ShortIOs += d.ShortIOs
		m.DropIOs += d.DropIOs
		m.RuntimeNs = max(m.RuntimeNs, d.RuntimeNs)
	}
	job.Mixed, job.MixedOnly = m, w.Report.Unified == UnifiedMixed
	if m.TotalIOs == 0 {
		return
	}
	m.IOKBytes = m.IOBytes >> 10
	m.Runtime = m.RuntimeNs / 1e6
	setDirRuntime(m, m.RuntimeNs)
	merged := make([]*latency.Recorder, len(recs))
	for _, k := range []int{recLat, recClat, recSlat} {
		r := latency.New()
		for d := range 2 {
			if recs[k+d] != nil {
				r.Merge(recs[k+d])
			}
		}
		merged[k] = r
	}
	w.latencyObjects(m, merged, 0)
}
