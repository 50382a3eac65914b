package blockbench

import (
	"fmt"
	"github.com/clydebench/clyde/internal/blocktarget"
	"math"
	"slices"
	"strconv"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// RankFileName is the file rank r uses for a file the plan names: ranks
// never share a file, so that no two write the same bytes and no rank's
// cache answers another's reads (IOR's file per process).
func RankFileName(name string, rank int) string {
	return name + ".rank" + strconv.Itoa(rank)
}

// targetName is the name this rank resolves for a workload's filename: a
// block device as named (each host's own, one rank on it), any other
// path the rank's own file (RankFileName).
func (r *Ranks) targetName(name string) (string, error) {
	if r == nil || r.Size <= 1 {
		return name, nil
	}
	device := blocktarget.IsRawDisk(name)
	if !device {
		if info, err := safepath.Lookup(name); err == nil && info.Exists && info.Kind == safepath.BlockDevice {
			device = true
		}
	}
	if !device {
		return RankFileName(name, r.Rank), nil
	}
	if r.HostRanks > 1 {
		return "", result.Usagef("--filename", "%s is a block device, and %d ranks of this job run on this host: each host's device takes one rank (start one rank per host), or give a file on a shared filesystem, which every rank gets its own copy of", name, r.HostRanks)
	}
	return name, nil
}

// validate refuses what cannot run across ranks.
func (r *Ranks) validate(p *Plan) error {
	if r == nil {
		return nil
	}
	switch {
	case r.Size < 1 || r.Rank < 0 || r.Rank >= r.Size:
		return fmt.Errorf("rank %d of %d", r.Rank, r.Size)
	case p.Analysis != nil:
		return result.Usagef("--ranks", "steady state ends each rank's group at its own time; run it on one machine")
	case p.PrivateDir || p.Fill.Set():
		return result.Usagef("--ranks", "a preset's private directory and fill are one machine's; run a job file or fio-style flags across ranks")
	}
	for _, g := range p.Groups {
		for _, w := range g {
			if w.Volume != nil {
				return result.Usagef("--ranks", "job %s spans a volume of several targets (Iometer's workers); run one target per job across ranks", w.Name)
			}
		}
	}
	return nil
}

// MergeRanks adds up one group's jobs from every rank into the job's, as
// fio's client sums its servers ("All clients"): for each job, I/Os, bytes
// and syncs summed, the runtime the longest rank's (so IOPS and bandwidth
// are the job's total over the slowest rank's time, mdtest's "last done"),
// latency histograms merged into true percentiles, the per-second series
// added slot by slot from the common start; shape, when set, fills its own
// fields from the ranks' (fio's: its samples and distributions, as its
// client does). ranks[r] is rank r's jobs of the group, the same jobs in
// the same order on every rank.
func MergeRanks(ranks [][]result.BlockJob, shape Shaper) ([]result.BlockJob, error) {
	if len(ranks) == 0 {
		return nil, nil
	}
	n := len(ranks[0])
	for r, jobs := range ranks {
		if len(jobs) != n {
			return nil, fmt.Errorf("rank %d ran %d jobs in the group, rank 0 ran %d", r, len(jobs), n)
		}
		for k := range jobs {
			if jobs[k].JobName != ranks[0][k].JobName {
				return nil, fmt.Errorf("rank %d's job %d is %q, rank 0's is %q", r, k, jobs[k].JobName, ranks[0][k].JobName)
			}
		}
	}
	out := make([]result.BlockJob, n)
	for k := range out {
		parts := make([]result.BlockJob, len(ranks))
		for r := range ranks {
			parts[r] = ranks[r][k]
		}
		m, err := mergeJob(parts, shape)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", parts[0].JobName, err)
		}
		out[k] = m
	}
	return out, nil
}

// mergeJob is one job summed over the ranks' parts: the longest times,
// the counts and latencies of each direction and of sync added up, the CPU
// weighted by each rank's runtime, and the shape's fields by its Merge.
func mergeJob(parts []result.BlockJob, shape Shaper) (result.BlockJob, error) {
	m := parts[0] // the options, config and names are every rank's
	mergeTimes(&m, parts)
	if err := mergeDirs(&m, parts); err != nil {
		return m, err
	}
	if shape != nil {
		if err := shape.Merge(&m, parts); err != nil {
			return m, err
		}
	}
	m.Trend = trendOf(m.Series)
	return m, nil
}

// mergeTimes sets m's times, CPU, series, notes and counters from the
// parts: the longest elapsed, the sums, each note once.
func mergeTimes(m *result.BlockJob, parts []result.BlockJob) {
	m.Series, m.Notes, m.AccessLines, m.ProcessCPU = nil, nil, nil, nil
	var cpuUsr, cpuSys, cpuNs float64
	for _, p := range parts {
		m.ElapsedNs = max(m.ElapsedNs, p.ElapsedNs)
		m.JobRuntime = max(m.JobRuntime, p.JobRuntime)
		m.Elapsed = max(m.Elapsed, p.Elapsed)
		m.Interrupted = m.Interrupted || p.Interrupted
		m.CPUKnown = m.CPUKnown && p.CPUKnown
		w := float64(p.ElapsedNs)
		cpuUsr, cpuSys, cpuNs = cpuUsr+p.UsrCPU*w, cpuSys+p.SysCPU*w, cpuNs+w
		m.Series = addSeries(m.Series, p.Series)
		for _, n := range p.Notes {
			if !slices.Contains(m.Notes, n) {
				m.Notes = append(m.Notes, n)
			}
		}
	}
	// The shape's fields are its Merge's to fill (none without a shape);
	// the CPU's context switches and faults are summed here.
	m.BlockJobFio = result.BlockJobFio{}
	m.Syncs = 0
	for _, p := range parts {
		m.Syncs += p.Syncs
		m.Ctx, m.Majf, m.Minf = m.Ctx+p.Ctx, m.Majf+p.Majf, m.Minf+p.Minf
	}
	// fio sums its clones' CPU over the sum of their runtimes: the mean
	// share of one CPU, weighted by each rank's runtime.
	if cpuNs > 0 {
		m.UsrCPU, m.SysCPU = cpuUsr/cpuNs, cpuSys/cpuNs
	}
}

// mergeDirs sums each direction (mergeDir) and sync's count and latency
// over the parts.
func mergeDirs(m *result.BlockJob, parts []result.BlockJob) error {
	var err error
	for d, dir := range []func(*result.BlockJob) *result.BlockDir{
		func(j *result.BlockJob) *result.BlockDir { return &j.Read },
		func(j *result.BlockJob) *result.BlockDir { return &j.Write },
		func(j *result.BlockJob) *result.BlockDir { return &j.Trim },
	} {
		dirs := make([]*result.BlockDir, len(parts))
		for r := range parts {
			dirs[r] = dir(&parts[r])
		}
		if *dir(m), err = mergeDir(dirs); err != nil {
			return fmt.Errorf("%s: %w", [...]string{"read", "write", "trim"}[d], err)
		}
	}
	if parts[0].Mixed != nil {
		// fio's "mixed" (unified.go), summed over the ranks as the rest.
		dirs := make([]*result.BlockDir, 0, len(parts))
		for r := range parts {
			if parts[r].Mixed != nil {
				dirs = append(dirs, parts[r].Mixed)
			}
		}
		mixed, err := mergeDir(dirs)
		if err != nil {
			return fmt.Errorf("mixed: %w", err)
		}
		m.Mixed = &mixed
	}
	syncs := make([]result.LatNs, len(parts))
	m.Sync.TotalIOs = 0
	for r, p := range parts {
		m.Sync.TotalIOs += p.Sync.TotalIOs
		syncs[r] = p.Sync.Lat
	}
	if m.Sync.Lat, err = mergeLat(syncs); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}

// mergeDir sums one direction over the ranks.
func mergeDir(dirs []*result.BlockDir) (result.BlockDir, error) {
	var m result.BlockDir
	var slat, clat, lat []result.LatNs
	for _, d := range dirs {
		m.TotalIOs += d.TotalIOs
		m.IOBytes += d.IOBytes
		m.ShortIOs += d.ShortIOs
		m.DropIOs += d.DropIOs
		m.RuntimeNs = max(m.RuntimeNs, d.RuntimeNs)
		slat, clat, lat = append(slat, d.Slat), append(clat, d.Clat), append(lat, d.Lat)
	}
	if m.TotalIOs == 0 {
		return result.BlockDir{}, nil
	}
	m.IOKBytes = m.IOBytes >> 10
	m.Runtime = m.RuntimeNs / 1e6
	if m.RuntimeNs > 0 {
		m.IOPS = float64(m.TotalIOs) * 1e9 / float64(m.RuntimeNs)
		m.BWBytes = int64(math.Round(float64(m.IOBytes) * 1e9 / float64(m.RuntimeNs)))
		m.BW = m.BWBytes >> 10
	}
	var err error
	if m.Slat, err = mergeLat(slat); err != nil {
		return m, fmt.Errorf("slat: %w", err)
	}
	if m.Clat, err = mergeLat(clat); err != nil {
		return m, fmt.Errorf("clat: %w", err)
	}
	if m.Lat, err = mergeLat(lat); err != nil {
		return m, fmt.Errorf("lat: %w", err)
	}
	return m, nil
}

// mergeLat merges latency objects through their histograms, at the
// percentiles (and with the json+ bins) the first one has.
func mergeLat(ls []result.LatNs) (result.LatNs, error) {
	all := latency.New()
	var ps []float64
	bins := false
	for _, l := range ls {
		if l.N == 0 {
			continue
		}
		r, err := l.Recorder()
		if err != nil {
			return result.LatNs{}, err
		}
		all.Merge(r)
		if ps == nil {
			for _, p := range l.Percentile {
				ps = append(ps, p.P)
			}
			bins = len(l.Bins) > 0
		}
	}
	if all.Count() == 0 {
		return result.LatNs{}, nil
	}
	m := result.LatNsFrom(all, ps)
	if bins {
		return m.WithBins()
	}
	return m, nil
}

// addSeries adds b's samples into a's, slot by slot from the common start.
func addSeries(a, b []result.BlockSample) []result.BlockSample {
	for i, s := range b {
		if i == len(a) {
			a = append(a, result.BlockSample{StartMs: s.StartMs})
		}
		t := &a[i]
		t.DurationNs = max(t.DurationNs, s.DurationNs)
		t.ReadIOs += s.ReadIOs
		t.ReadBytes += s.ReadBytes
		t.WriteIOs += s.WriteIOs
		t.WriteBytes += s.WriteBytes
		t.IOPS += s.IOPS
		t.BWBytes += s.BWBytes
	}
	return a
}

// MergeRankGroups makes rank 0's result the job's: groups[g][r] is rank
// r's jobs of group g, rank 0's own among them, in the order the result
// holds them. Every job is summed over the ranks (MergeRanks) and the
// reporting groups are summed again from the sums, the shape's group
// fields (fio's bw_agg) with them.
func MergeRankGroups(res *result.Block, groups [][][]result.BlockJob, shape Shaper) error {
	var jobs []result.BlockJob
	var gs []result.BlockGroup
	for g, ranks := range groups {
		merged, err := MergeRanks(ranks, shape)
		if err != nil {
			return fmt.Errorf("group %d: %w", g+1, err)
		}
		gs = append(gs, reportGroups(merged, len(jobs), shape)...)
		jobs = append(jobs, merged...)
	}
	if len(jobs) != len(res.Jobs) {
		return fmt.Errorf("rank 0's result holds %d jobs, the ranks' groups %d", len(res.Jobs), len(jobs))
	}
	res.Jobs, res.Groups = jobs, gs
	return nil
}
