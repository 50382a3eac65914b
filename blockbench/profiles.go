package blockbench

import (
	"fmt"
	"strings"

	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// profileRow is one line of a preset's table.
type profileRow struct {
	label   string
	rw      RW
	mix     int
	bs      int64
	depth   int
	numJobs int
	load    int
}

// profileTable is a preset being run: its rows. (cdm.go and iometer.go
// plan and fill CrystalDiskMark's and Iometer's presets.)
type profileTable struct {
	name Profile
	rows []profileRow
}

// The presets' loads. They are functions that return fresh slices, so no
// caller can change a preset for every later run.

// SweepSizes are bs-sweep's block sizes, 1 KiB to 1 MiB.
func SweepSizes() []int64 {
	return []int64{1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20}
}

// plan turns a job into the workloads it runs, one group each (a plain job
// per block size, or one pass of one preset row), the step each group is,
// and a table for presets.
func (j *Job) plan() (Plan, []step, *profileTable, error) {
	p := Plan{DestroyData: j.DestroyData, AllowSparse: j.AllowSparse, AllowCached: j.AllowCached, SizeGiven: j.SizeGiven, Warn: j.Warn, CommandLine: j.CommandLine, Steady: j.Steady,
		WriteLog: j.WriteLog, Notes: append([]string(nil), j.Notes...), Progress: j.Progress, Ranks: j.Ranks, Shape: j.Shape}
	var steps []step
	add := func(w Workload, st step) {
		p.Groups = append(p.Groups, Group{w})
		steps = append(steps, st)
	}
	if j.Profile == ProfileSustained && p.Steady == nil {
		p.Steady = &SteadyState{}
	}
	if j.Profile == ProfileNone || j.Profile == ProfileSustained {
		for _, bs := range j.BlockSizes {
			add(workloadFrom(j, j.RW, bs), step{row: -1})
		}
		return p, steps, nil, nil
	}
	switch j.Profile {
	case ProfileOrion:
		// ORION's load matrices, data points and files are package orion's;
		// blockbench cannot import it, so the CLI hands the job over there.
		return p, nil, nil, result.Usagef("--profile", "orion runs through package orion (orion.RunJob), which clyde block calls for it")
	case ProfileIometerMix:
		return p, nil, nil, result.Usagef("--profile", "iometer-mix runs through package iometer (iometer.RunMix), which clyde block calls for it")
	}
	t := &profileTable{name: j.Profile, rows: profileRows(j)}
	for r, row := range t.rows {
		w := workloadFrom(j, row.rw, row.bs)
		w.Name = fmt.Sprintf("%s %s", row.label, w.RW)
		w.RWMixRead, w.IODepth, w.NumJobs = row.mix, row.depth, row.numJobs
		if row.depth > 1 {
			if e, err := pickEngine(w.IOEngine, row.depth); err == nil && !e.queues() {
				return p, nil, nil, result.Usagef("--ioengine", "the %s row %q needs %d I/Os in flight, and %s keeps one at a time; "+
					"use --ioengine auto or one of: %s", j.Profile, row.label, row.depth, e.name(), strings.Join(queueingEngines(), ", "))
			}
		}
		add(w, step{row: r})
	}
	return p, steps, t, nil
}

// profileRows lists a preset's rows in the order the original prints them.
func profileRows(j *Job) []profileRow {
	var rows []profileRow
	switch j.Profile {
	case ProfileBSSweep:
		for _, bs := range SweepSizes() {
			rows = append(rows, profileRow{label: units.Label(bs), rw: j.RW, mix: j.RWMixRead, bs: bs, depth: j.IODepth, numJobs: j.NumJobs})
		}
	}
	return rows
}

// finish fills the table from the jobs that ran; each row has one pass.
func (t *profileTable) finish(steps []step, jobs []result.BlockJob) *result.BlockProfile {
	// Each step is one group of one job, so jobs and steps line up.
	out := &result.BlockProfile{Name: string(t.name)}
	for r, row := range t.rows {
		pr := result.BlockProfileRow{Label: row.label, RW: string(row.rw), RWMixRead: row.mix, BSBytes: row.bs,
			IODepth: row.depth, NumJobs: row.numJobs, Load: row.load}
		best := -1
		for i := range jobs {
			if i >= len(steps) || steps[i].row != r {
				continue
			}
			pr.Jobs = append(pr.Jobs, i)
			if best < 0 || totalIOPS(&jobs[i]) > totalIOPS(&jobs[best]) {
				best = i
			}
		}
		if best >= 0 {
			fillRow(&pr, &jobs[best])
			for _, i := range pr.Jobs {
				if m := meanLat(&jobs[i]); m > 0 && m < pr.MeanLatNs {
					pr.MeanLatNs = m
				}
			}
		}
		out.Rows = append(out.Rows, pr)
	}
	return out
}

func totalIOPS(j *result.BlockJob) float64 { return j.Read.IOPS + j.Write.IOPS }

// meanLat is the mean latency over both directions.
func meanLat(j *result.BlockJob) float64 {
	n := j.Read.Lat.N + j.Write.Lat.N
	if n == 0 {
		return 0
	}
	return (j.Read.Lat.Mean*float64(j.Read.Lat.N) + j.Write.Lat.Mean*float64(j.Write.Lat.N)) / float64(n)
}

func fillRow(pr *result.BlockProfileRow, j *result.BlockJob) {
	pr.IOPS = totalIOPS(j)
	pr.BWBytes = j.Read.BWBytes + j.Write.BWBytes
	pr.ReadIOPS, pr.WriteIOPS = j.Read.IOPS, j.Write.IOPS
	pr.MeanLatNs = meanLat(j)
	pr.ReadMeanNs, pr.ReadMaxNs = j.Read.Lat.Mean, j.Read.Lat.Max
	pr.WriteMeanNs, pr.WriteMaxNs = j.Write.Lat.Mean, j.Write.Lat.Max
	pr.P99LatNs = max(p99(&j.Read), p99(&j.Write))
}

// p99 is the total latency (lat) at the 99th percentile.
func p99(d *result.BlockDir) int64 {
	v, _ := d.LatPercentile(99)
	return v
}
