package compare

import (
	"testing"

	"github.com/clydebench/clyde/result"
)

// A run across ranks is another measurement than one client's, and than
// the same job across another number of ranks.
func TestParamsCountRanks(t *testing.T) {
	job := []result.BlockJob{{JobName: "rr", Config: result.BlockJobConfig{RW: "randread", BSBytes: 4096, IODepth: 1, NumJobs: 1}}}
	one := FromBlock(&result.Block{Jobs: job})
	four := FromBlock(&result.Block{Jobs: job, Job: &result.RankJob{Ranks: 4}})
	eight := FromBlock(&result.Block{Jobs: job, Job: &result.RankJob{Ranks: 8}})
	if one.Params() == four.Params() || four.Params() == eight.Params() {
		t.Errorf("block params do not tell the rank counts apart: %s / %s / %s", one.Params(), four.Params(), eight.Params())
	}
	c1 := FromCopy(&result.Copy{Config: result.CopyConfig{Method: "readwrite"}})
	c4 := FromCopy(&result.Copy{Config: result.CopyConfig{Method: "readwrite"}, Job: &result.RankJob{Ranks: 4}})
	if c1.Params() == c4.Params() {
		t.Errorf("copy params do not tell the rank counts apart: %s", c1.Params())
	}
}
