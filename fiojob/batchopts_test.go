package fiojob

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
)

// TestBatchOptions reads fio's batching options into the workload's
// knobs (echoed by their names), with fio's ranges and its 0s: a batch of
// iodepth, a low-water mark of iodepth, a reap that polls. On a
// synchronous engine fio ignores them, and so does clyde; on an engine
// clyde does not batch a value other than the default is refused by name
// at its line.
func TestBatchOptions(t *testing.T) {
	const uring = "ioengine=io_uring\niodepth=16\n"
	cases := []struct {
		name, opts string
		check      func(w blockbench.Workload) bool
		refused    string // "" when the options are taken
		note       string // a note the job must carry
	}{
		{name: "complete_max", opts: uring + "iodepth_batch_complete_max=4", check: func(w blockbench.Workload) bool {
			return w.IODepthBatchCompleteMax == 4 && w.JobOptions.Get("iodepth_batch_complete_max") == "4"
		}},
		{name: "complete_max 0 is the default", opts: uring + "iodepth_batch_complete_max=0", check: func(w blockbench.Workload) bool { return w.IODepthBatchCompleteMax == 0 }},
		{name: "submit 8 complete 4", opts: uring + "iodepth_batch_submit=8\niodepth_batch_complete_min=4", check: func(w blockbench.Workload) bool {
			return w.SubmitBatch == 8 && w.ReapMin == 4 && !w.ReapPoll && w.JobOptions.Get("iodepth_batch") == "8" && w.JobOptions.Get("iodepth_batch_complete_min") == "4"
		}},
		{name: "aliases", opts: "ioengine=libaio\ndirect=1\niodepth=16\niodepth_batch=16\niodepth_batch_complete=2", check: func(w blockbench.Workload) bool {
			return w.SubmitBatch == 16 && w.ReapMin == 2 && w.JobOptions.Get("iodepth_batch") == "16"
		}},
		{name: "iodepth_batch 0 is iodepth", opts: uring + "iodepth_batch=0", check: func(w blockbench.Workload) bool {
			return w.SubmitBatch >= w.IODepth
		}},
		{name: "complete_min 0 polls", opts: uring + "iodepth_batch_complete_min=0\niodepth_batch_complete_max=16", check: func(w blockbench.Workload) bool {
			return w.ReapPoll && w.ReapMin == 0 && w.IODepthBatchCompleteMax == 16
		}},
		{name: "iodepth_low", opts: uring + "iodepth_low=4", check: func(w blockbench.Workload) bool { return w.LowWater == 4 }},
		{name: "iodepth_low above iodepth is iodepth", opts: uring + "iodepth_low=64", check: func(w blockbench.Workload) bool { return w.LowWater == 64 }},
		{name: "options before the engine", opts: "iodepth_batch_submit=4\niodepth=8\nioengine=io_uring", check: func(w blockbench.Workload) bool { return w.SubmitBatch == 4 }},
		{name: "fio's defaults spelled out on psync", opts: "iodepth_batch_submit=1\niodepth_batch_complete_min=1\niodepth_batch=1\niodepth_batch_complete=1",
			check: func(w blockbench.Workload) bool {
				return w.JobOptions.Get("iodepth_batch") == "1" && w.SubmitBatch == 0 && w.ReapMin == 0
			}},
		{name: "psync ignores them as fio does", opts: "ioengine=psync\niodepth=16\niodepth_batch_submit=8\niodepth_low=2\niodepth_batch_complete_min=4", check: func(w blockbench.Workload) bool {
			return w.SubmitBatch == 0 && w.LowWater == 0 && w.ReapMin == 0 && w.JobOptions.Get("iodepth_batch") == "8"
		}},
		{name: "psync polling says what fio counts", opts: "ioengine=psync\niodepth_batch_complete_min=0", check: func(w blockbench.Workload) bool { return !w.ReapPoll },
			note: "empty reap after every I/O"},
		{name: "posixaio does not batch here", opts: "ioengine=posixaio\niodepth=8\niodepth_batch_submit=4", refused: "iodepth_batch_submit=4: clyde batches io_uring and libaio only"},
		{name: "null does not batch here", opts: "ioengine=null\niodepth=8\niodepth_low=2", refused: "iodepth_low=2: clyde batches io_uring and libaio only"},
		{name: "negative batch", opts: uring + "iodepth_batch_submit=-1", refused: "iodepth_batch_submit=\"-1\": give a whole number from 0"},
		{name: "low not a number", opts: uring + "iodepth_low=x", refused: "iodepth_low=\"x\""},
		{name: "complete_min too large", opts: uring + "iodepth_batch_complete_min=99999", refused: "iodepth_batch_complete_min=\"99999\""},
		{name: "complete_max not a number", opts: uring + "iodepth_batch_complete_max=x", refused: "iodepth_batch_complete_max=\"x\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compile(t, "[a]\nfilename=f\nsize=1m\n"+tc.opts+"\n", nil, nil, Options{})
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), "job.fio:") {
					t.Fatalf("got %v, want a refusal at its line saying %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w := p.Groups[0][0]; !tc.check(w) {
				t.Errorf("workload %+v does not hold %s", w, tc.opts)
			}
			if tc.note != "" && !strings.Contains(strings.Join(p.Notes, "\n"), tc.note) {
				t.Errorf("notes %q, want one saying %q", p.Notes, tc.note)
			}
		})
	}
}
