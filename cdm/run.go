package cdm

import (
	"context"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/preset"
	"github.com/clydebench/clyde/result"
)

// Run runs CrystalDiskMark with o on the job's target, size, engine and
// measure time, and fills the result's CrystalDiskMark and profile tables.
// Like blockbench.Run it returns nil with a *result.UsageError when the
// run is refused before anything is touched.
func Run(ctx context.Context, j blockbench.Job, o Options) (*result.Block, error) {
	if err := o.Validate(&j); err != nil {
		return nil, err
	}
	pl, err := Plan(j, o)
	if err != nil {
		return nil, err
	}
	res, err := blockbench.RunPlan(ctx, pl.Plan)
	if res != nil {
		pl.Finish(res)
		if err != nil && res.Error == "" {
			// A run stopped before its first group (prepare failed,
			// interrupted) has no job to carry the error.
			res.Error = err.Error()
		}
	}
	return res, err
}

// Finish fills res's CrystalDiskMark and profile tables from the jobs of
// the plan that ran (one per group), marking the warm-ups, and says
// whether the run was elevated (CrystalDiskMark's [Admin]).
func (pl *Planned) Finish(res *result.Block) {
	res.CDM, res.Profile = pl.finish(res.Jobs)
	res.CDM.Admin = elevated()
}

// finish keeps each row's figures from its passes: CrystalDiskMark's
// best (the highest MB/s, and the lowest latency of a pass that moved
// data), or their average. Jobs line up with groups, one each. A row no
// pass of which ran is left out: zeros would read as a measurement.
func (pl *Planned) finish(jobs []result.BlockJob) (*result.BlockCDM, *result.BlockProfile) {
	j, o := &pl.job, &pl.opts
	out := &result.BlockCDM{Preset: string(o.Preset), Profile: presets[o.Preset].profile, TestSizeBytes: j.Size, Passes: o.Passes,
		MeasureNs: int64(j.Runtime), IntervalNs: int64(o.Interval), Aggregate: string(o.Aggregate), TestData: string(o.Data),
		Direct: !o.Buffered}
	if o.Mix {
		out.MixReadPct = o.MixRead
	}
	if out.TestSizeBytes == 0 && len(jobs) > 0 {
		out.TestSizeBytes = jobs[0].Config.SizeBytes
	}
	prof := &result.BlockProfile{Name: Name, Passes: o.Passes}
	for _, r := range pl.rows {
		cr, ok := o.keep(r, jobs)
		if !ok {
			continue
		}
		out.Rows = append(out.Rows, cr)
		prof.Rows = append(prof.Rows, o.profileRow(r, &cr))
	}
	return out, prof
}

// keep is row r's figures from the passes that ran; false when none did.
// It marks the row's warm-up job.
func (o *Options) keep(r row, jobs []result.BlockJob) (result.BlockCDMRow, bool) {
	cr := result.BlockCDMRow{Test: r.test.label(), Random: r.test.random, BSBytes: r.test.bs, Queues: r.test.queues,
		Threads: r.test.threads, Mode: r.mode, Data: string(r.data), WarmupJob: -1}
	if r.warmup < len(jobs) {
		cr.WarmupJob = r.warmup
		jobs[r.warmup].Warmup = true // compare, the page and Prometheus leave it out
	}
	var sumBW, sumLat float64
	n := 0
	bestLat := -1.0
	for _, g := range r.passes {
		if g >= len(jobs) {
			break
		}
		cr.Jobs = append(cr.Jobs, g)
		job := &jobs[g]
		bw := float64(job.Read.BWBytes + job.Write.BWBytes)
		lat := preset.MeanLatNs(job) / 1e3
		sumBW, sumLat, n = sumBW+bw, sumLat+lat, n+1
		if bw > cr.BWBytes {
			cr.BWBytes = bw
		}
		if bw > 0 && (bestLat < 0 || lat < bestLat) {
			bestLat = lat
		}
	}
	switch {
	case n == 0:
		return cr, false
	case o.Aggregate == Average:
		cr.BWBytes, cr.LatencyUs = sumBW/float64(n), sumLat/float64(n)
	default:
		cr.LatencyUs = max(0, bestLat)
	}
	cr.IOPS = cr.BWBytes / float64(r.test.bs)
	return cr, true
}

// profileRow is a kept row as a row of the profile table.
func (o *Options) profileRow(r row, cr *result.BlockCDMRow) result.BlockProfileRow {
	label := cr.Test + " " + cr.Mode
	if o.Data == Both {
		label += " " + cr.Data
	}
	pr := result.BlockProfileRow{Label: label, RW: string(rw(r.test.random, r.mode)), BSBytes: r.test.bs,
		IODepth: r.test.queues, NumJobs: r.test.threads, Jobs: cr.Jobs, IOPS: cr.IOPS, BWBytes: int64(cr.BWBytes),
		MeanLatNs: cr.LatencyUs * 1e3}
	if r.mode == "mix" {
		pr.RWMixRead = o.MixRead
	}
	return pr
}
