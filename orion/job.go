package orion

import (
	"context"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/preset"
	"github.com/clydebench/clyde/result"
)

// ProfileName is clyde block --profile orion, and the name of its result's
// profile table.
const ProfileName = "orion"

// RunJob is clyde block --profile orion: ORION's simple level for one disk
// (small random reads at loads 1..5, then large ones at 1..2) on the job's
// file or device, each point for the job's runtime (or, without TimeBased,
// one pass of the region per worker), writing no ORION files. Besides the
// Orion matrix, the result gets the preset's table (Profile "orion"), one
// row per point.
func RunJob(ctx context.Context, j blockbench.Job) (*result.Block, error) {
	if err := preset.Validate(&j, ProfileName, nil); err != nil {
		return nil, err
	}
	o := DefaultOptions(RunSimple)
	o.TestName, o.LUNs, o.Size = "block", []string{j.Filename}, j.Size
	o.Duration, o.IOEngine, o.Direct, o.Seed = j.Runtime, j.IOEngine, j.Direct, j.Seed
	o.DestroyData, o.AllowSparse, o.AllowCached, o.Warn, o.CommandLine, o.OutputDir = j.DestroyData, j.AllowSparse, j.AllowCached, j.Warn, j.CommandLine, ""
	o.Shape = j.Shape
	o.Command = "-run simple -num_disks 1"
	if !j.TimeBased || j.Runtime == 0 {
		o.Duration = blockbench.MinRuntime // checked, then replaced by one pass
	}
	t, err := PrepareContext(ctx, o)
	if err != nil {
		return nil, err
	}
	t.plan.SizeGiven = j.SizeGiven
	if !j.TimeBased || j.Runtime == 0 {
		for _, g := range t.plan.Groups {
			for k := range g {
				g[k].TimeBased, g[k].Runtime = false, j.Runtime
			}
		}
	}
	res, err := t.Run(ctx)
	if res != nil {
		res.Profile = t.profileTable(res)
	}
	return res, err
}

// profileTable is the preset's table: a row per point, with its job's
// figures (each point of the simple level is one workload).
func (t *Test) profileTable(res *result.Block) *result.BlockProfile {
	out := &result.BlockProfile{Name: ProfileName}
	for _, s := range res.Orion.Sets {
		for _, p := range s.Points {
			if len(p.Jobs) != 1 || p.Jobs[0] >= len(res.Jobs) {
				continue
			}
			j := &res.Jobs[p.Jobs[0]]
			load := p.Small + p.Large
			r := result.BlockProfileRow{Label: Point{p.Small, p.Large}.String(), RW: j.Config.RW, RWMixRead: j.Config.RWMixRead,
				BSBytes: j.Config.BSBytes, IODepth: j.Config.IODepth, NumJobs: j.Config.NumJobs, Load: load, Jobs: p.Jobs,
				IOPS: j.Read.IOPS + j.Write.IOPS, BWBytes: j.Read.BWBytes + j.Write.BWBytes, ReadIOPS: j.Read.IOPS,
				WriteIOPS: j.Write.IOPS, MeanLatNs: meanLatNs(j), ReadMeanNs: j.Read.Lat.Mean, ReadMaxNs: j.Read.Lat.Max,
				WriteMeanNs: j.Write.Lat.Mean, WriteMaxNs: j.Write.Lat.Max}
			for _, d := range []result.BlockDir{j.Read, j.Write} {
				if v, ok := d.Lat.Percentile.At(99); ok {
					r.P99LatNs = max(r.P99LatNs, v)
				}
			}
			out.Rows = append(out.Rows, r)
		}
	}
	return out
}
