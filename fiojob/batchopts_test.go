package fiojob

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
)

// TestBatchOptions reads fio's batching options: iodepth_batch_complete_max
// into the workload (echoed by its name), fio's defaults of the others
// taken, and any other value refused by the option's name at its line.
func TestBatchOptions(t *testing.T) {
	cases := []struct {
		name, opts string
		check      func(w blockbench.Workload) bool
		refused    string // "" when the options are taken
	}{
		{name: "complete_max", opts: "iodepth_batch_complete_max=4", check: func(w blockbench.Workload) bool {
			return w.IODepthBatchCompleteMax == 4 && w.Options["iodepth_batch_complete_max"] == "4"
		}},
		{name: "complete_max 0 is the default", opts: "iodepth_batch_complete_max=0", check: func(w blockbench.Workload) bool { return w.IODepthBatchCompleteMax == 0 }},
		{name: "fio's defaults spelled out", opts: "iodepth_batch_submit=1\niodepth_batch_complete_min=1\niodepth_batch=1\niodepth_batch_complete=1",
			check: func(w blockbench.Workload) bool {
				return w.Options["iodepth_batch_submit"] == "1" && w.IODepthBatchCompleteMax == 0
			}},
		{name: "submit in batches", opts: "iodepth_batch_submit=8", refused: "iodepth_batch_submit=8: clyde submits one I/O per call"},
		{name: "iodepth_batch 0 is iodepth", opts: "iodepth_batch=0", refused: "iodepth_batch=0"},
		{name: "reap that may take none", opts: "iodepth_batch_complete_min=0", refused: "iodepth_batch_complete_min=0: clyde waits"},
		{name: "complete_max not a number", opts: "iodepth_batch_complete_max=x", refused: "iodepth_batch_complete_max=\"x\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compile(t, "[a]\nfilename=f\nsize=1m\nioengine=io_uring\niodepth=8\n"+tc.opts+"\n", nil, nil, Options{})
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
		})
	}
}
