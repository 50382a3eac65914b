package blockbench

import (
	"fmt"
	"strconv"

	"github.com/clydebench/clyde/internal/blocksum"
	"github.com/clydebench/clyde/internal/blocktarget"
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
// fio's client sums its servers (blocksum.MergeRanks): ranks[r] is rank
// r's jobs of the group, the same jobs in the same order on every rank;
// shape, when set, fills its own fields from the ranks'.
func MergeRanks(ranks [][]result.BlockJob, shape Shaper) ([]result.BlockJob, error) {
	return blocksum.MergeRanks(ranks, shape)
}

// MergeRankGroups makes rank 0's result the job's: groups[g][r] is rank
// r's jobs of group g, rank 0's own among them, in the order the result
// holds them (blocksum.MergeRankGroups).
func MergeRankGroups(res *result.Block, groups [][][]result.BlockJob, shape Shaper) error {
	return blocksum.MergeRankGroups(res, groups, shape)
}
