package blockpreset

import (
	"context"
	"fmt"
	"strings"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/preset"
	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// SweepName is the block-size sweep's name: clyde block --profile
// bs-sweep, and the name of its result's profile table.
const SweepName = "bs-sweep"

// SweepSizes are bs-sweep's block sizes, 1 KiB to 1 MiB. It returns a
// fresh slice, so no caller can change the preset for every later run.
func SweepSizes() []int64 {
	return []int64{1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20}
}

// Sweep is a block-size sweep as blockbench runs it, and what its table is
// made from.
type Sweep struct {
	// Plan is what blockbench.RunPlan runs: the job's plan with one group
	// per block size, in SweepSizes' order.
	Plan blockbench.Plan
	rows []sweepRow
}

// sweepRow is one line of the sweep's table.
type sweepRow struct {
	label   string
	rw      blockbench.RW
	mix     int
	bs      int64
	depth   int
	numJobs int
}

// PlanSweep is the job once per block size of SweepSizes: its rw mode,
// depth and workers, its plan's other settings.
func PlanSweep(j blockbench.Job) (*Sweep, error) {
	s := &Sweep{Plan: j.Plan()}
	s.Plan.Groups = nil
	for _, bs := range SweepSizes() {
		r := sweepRow{label: units.Label(bs), rw: j.RW, mix: j.RWMixRead, bs: bs, depth: j.IODepth, numJobs: j.NumJobs}
		if err := r.checkQueue(j.IOEngine); err != nil {
			return nil, err
		}
		w := j.Workload(r.rw, r.bs)
		w.Name = fmt.Sprintf("%s %s", r.label, w.RW)
		w.RWMixRead, w.IODepth, w.NumJobs = r.mix, r.depth, r.numJobs
		s.Plan.Groups = append(s.Plan.Groups, blockbench.Group{w})
		s.rows = append(s.rows, r)
	}
	return s, nil
}

// checkQueue refuses an engine that keeps one I/O at a time for a row
// that asks for more in flight.
func (r *sweepRow) checkQueue(engine blockbench.Engine) error {
	if r.depth <= 1 {
		return nil
	}
	if e, queues, err := blockbench.ResolveEngine(engine, r.depth); err == nil && !queues {
		return result.Usagef("--ioengine", "the %s row %q needs %d I/Os in flight, and %s keeps one at a time; "+
			"use --ioengine auto or one of: %s", SweepName, r.label, r.depth, e, strings.Join(blockbench.QueueingEngines(), ", "))
	}
	return nil
}

// RunSweep is clyde block --profile bs-sweep: the sweep run, with its
// table.
func RunSweep(ctx context.Context, j blockbench.Job) (*result.Block, error) {
	if err := preset.Validate(&j, SweepName, nil); err != nil {
		return nil, err
	}
	s, err := PlanSweep(j)
	if err != nil {
		return nil, err
	}
	res, err := blockbench.RunPlan(ctx, s.Plan)
	if res != nil {
		res.Profile = s.Table(res.Jobs)
	}
	return res, err
}

// Table fills the sweep's table from the jobs that ran: each row is one
// group of one job, so jobs and rows line up, and a row whose job did not
// run has no figures.
func (s *Sweep) Table(jobs []result.BlockJob) *result.BlockProfile {
	out := &result.BlockProfile{Name: SweepName}
	for r, row := range s.rows {
		pr := result.BlockProfileRow{Label: row.label, RW: string(row.rw), RWMixRead: row.mix, BSBytes: row.bs,
			IODepth: row.depth, NumJobs: row.numJobs}
		if r < len(jobs) {
			pr.Jobs = []int{r}
			fillRow(&pr, &jobs[r])
		}
		out.Rows = append(out.Rows, pr)
	}
	return out
}

func fillRow(pr *result.BlockProfileRow, j *result.BlockJob) {
	pr.IOPS = j.Read.IOPS + j.Write.IOPS
	pr.BWBytes = j.Read.BWBytes + j.Write.BWBytes
	pr.ReadIOPS, pr.WriteIOPS = j.Read.IOPS, j.Write.IOPS
	pr.MeanLatNs = preset.MeanLatNs(j)
	pr.ReadMeanNs, pr.ReadMaxNs = j.Read.Lat.Mean, j.Read.Lat.Max
	pr.WriteMeanNs, pr.WriteMaxNs = j.Write.Lat.Mean, j.Write.Lat.Max
	pr.P99LatNs = max(p99(&j.Read), p99(&j.Write))
}

// p99 is the total latency (lat) at the 99th percentile.
func p99(d *result.BlockDir) int64 {
	v, _ := d.LatPercentile(99)
	return v
}
