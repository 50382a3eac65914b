// Package preset holds what clyde block's presets share (package cdm,
// iometer's RunMix, orion's RunJob, blockpreset): the rules a job must
// meet to be planned by a preset, and the figures their tables are made
// of. A preset is a package of its own over blockbench's public API; this
// one holds only the pieces more than one of them needs.
package preset

import (
	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// Validate checks a job that the preset name plans into workloads of its
// own: it refuses the options only a single job's workloads take (the
// random distribution and zones, verify, fdatasync, fsync_on_close), then
// the preset's own rules (nil: none), then the job's fields
// (Job.ValidateFields: no block size needed, no footprint, which RunPlan
// checks on the rows as planned).
func Validate(j *blockbench.Job, name string, rules func() error) error {
	if !j.Distribution.Uniform() || j.Zones != (blockbench.StridedZones{}) {
		return result.Usagef("--random_distribution", "the %s preset draws its own offsets; give --random_distribution and --zonemode to a single job", name)
	}
	if j.Verify != blockbench.VerifyNone || j.Fdatasync > 0 || j.FsyncOnClose {
		flag := "--verify"
		if j.Verify == blockbench.VerifyNone {
			flag = map[bool]string{true: "--fdatasync", false: "--fsync_on_close"}[j.Fdatasync > 0]
		}
		return result.Usagef(flag, "the %s preset runs its own jobs; give --verify, --fdatasync and --fsync_on_close to a single job", name)
	}
	if rules != nil {
		if err := rules(); err != nil {
			return err
		}
	}
	return j.ValidateFields()
}

// MeanLatNs is a job's mean total latency over both directions.
func MeanLatNs(j *result.BlockJob) float64 {
	n := j.Read.Lat.N + j.Write.Lat.N
	if n == 0 {
		return 0
	}
	return (j.Read.Lat.Mean*float64(j.Read.Lat.N) + j.Write.Lat.Mean*float64(j.Write.Lat.N)) / float64(n)
}
