package blockpreset

import (
	"context"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/preset"
	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// SustainedName is the sustained preset's name: clyde block --profile
// sustained.
const SustainedName = "sustained"

// The sustained preset: the write-up's question, whether an SSD keeps its
// performance under a mixed read/write high load for 30 minutes and more.
// 4 KiB random I/O, 70 % reads, 32 in flight, direct, for 30 minutes, with
// the per-second series judged by SNIA's steady-state rule.
const (
	SustainedRW        = blockbench.RandRW
	SustainedRWMixRead = 70
	SustainedBS        = int64(4 << 10)
	SustainedIODepth   = 32
	SustainedRuntime   = 30 * time.Minute
)

// SustainedJob is blockbench.NewJob with the sustained preset's settings:
// what `clyde block --profile sustained` runs when no flag changes them.
func SustainedJob(filename string) blockbench.Job {
	j := blockbench.NewJob(filename)
	ApplySustained(&j)
	return j
}

// ApplySustained sets the preset's rw mode, mix, block size, depth, runtime
// and O_DIRECT on j (the CLI then lets each flag given override its own).
func ApplySustained(j *blockbench.Job) {
	j.RW, j.RWMixRead, j.BlockSizes = SustainedRW, SustainedRWMixRead, []int64{SustainedBS}
	j.IODepth, j.Runtime, j.TimeBased, j.Direct = SustainedIODepth, SustainedRuntime, true, true
}

// PlanSustained is the job's plan with the sustained-load analysis: the
// job's steady-state settings, or SNIA's rule alone when it has none. Each
// workload is named after its block size, as a preset's rows are.
func PlanSustained(j blockbench.Job) blockbench.Plan {
	p := j.Plan()
	if p.Analysis == nil {
		p.Analysis = &SteadyState{}
	}
	if len(j.BlockSizes) == 1 { // several are named so already (Job.Workload)
		for _, g := range p.Groups {
			for k := range g {
				g[k].Name += "-" + units.Label(g[k].BS)
			}
		}
	}
	return p
}

// RunSustained is clyde block --profile sustained: j as it is (ApplySustained
// sets the preset's settings), with the sustained-load analysis.
func RunSustained(ctx context.Context, j blockbench.Job) (*result.Block, error) {
	if err := preset.Validate(&j, SustainedName, nil); err != nil {
		return nil, err
	}
	return blockbench.RunPlan(ctx, PlanSustained(j))
}
