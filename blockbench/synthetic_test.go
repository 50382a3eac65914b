package blockbench

import (
	"math/rand/v2"
	"time"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// syntheticPlanJobs runs p's groups on synthetic workers over seconds
// seconds of an exact clock: each I/O drawn by the workload's pattern (so
// access specifications keep their mix and line counts), rate and latency
// from perIO(workload), latencies lognormal from a seeded stream.
func syntheticPlanJobs(p Plan, seconds int, perIO func(w *workload) (iops int64, meanNs float64)) []result.BlockJob {
	var jobs []result.BlockJob
	for gi, g := range p.Groups {
		for _, w := range g {
			wl := resolvedForTest(w, max(w.Size, 1<<30))
			wl.groupID = gi
			iops, meanNs := perIO(wl)
			rng := rand.New(rand.NewPCG(uint64(gi), 11))
			merged := make([]*latency.Recorder, nRecs)
			for k := range merged {
				merged[k] = latency.New()
			}
			var workers []*worker
			for i := range wl.NumJobs {
				wk := newWorker(wl, i)
				for sec := range seconds {
					for range iops {
						dir, off, size := wk.pattern.next(wk)
						lat := max(10, int64(meanNs*(0.5+rng.ExpFloat64()*0.5)))
						wk.complete(dir, size, size, off, 0, lat/10, lat)
						if wl.engine.queues() {
							wk.markDepth(wl.depth) // as a full queue counts it
							wk.markReap(1)
						}
					}
					wk.marks = append(wk.marks, mark{atNs: int64(sec+1) * int64(time.Second), ios: wk.ios, bytes: wk.bytes})
				}
				wk.endNs = int64(seconds) * int64(time.Second)
				wk.thread = syntheticThread(seconds, i)
				workers = append(workers, wk)
				for k, r := range wk.recs {
					if r != nil {
						merged[k].Merge(r)
					}
				}
			}
			jobs = append(jobs, summarize(wl, workers, merged, fixedCPU))
		}
	}
	return jobs
}
