package iometer

import (
	"context"
	"fmt"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/preset"
	"github.com/clydebench/clyde/result"
)

// MixName is the iometer-mix preset's name: clyde block --profile
// iometer-mix, and the name of its result's profile table.
const MixName = "iometer-mix"

// MixReadPcts are the % Read of the iometer-mix preset's access
// specifications: 4 KiB, 100% random, one each.
func MixReadPcts() []int { return []int{100, 99, 90, 50, 10, 0} }

// MixSetup is the iometer-mix preset: one access specification per read
// share, run on j's NumJobs workers of IODepth outstanding I/Os each, on
// j's target, region, engine and times.
func MixSetup(j *blockbench.Job) Setup {
	s := Setup{Source: MixName, Profile: MixName, Filename: j.Filename,
		Description: "4 KiB random at each read share", Runtime: j.Runtime, RampTime: j.RampTime, IOEngine: j.IOEngine,
		Direct: j.Direct, DestroyData: j.DestroyData, AllowSparse: j.AllowSparse, AllowCached: j.AllowCached, SizeGiven: j.SizeGiven, Warn: j.Warn, Progress: j.Progress,
		CommandLine: j.CommandLine, OnePass: !j.TimeBased, Shape: j.Shape}
	var all []int
	for i, pct := range MixReadPcts() {
		s.Specs = append(s.Specs, AccessSpec{Name: fmt.Sprintf("4K; %d%% Read; 100%% random", pct),
			Lines: []AccessLine{{Size: 4096, Weight: 100, ReadPct: pct, RandomPct: 100}}})
		all = append(all, i)
	}
	for k := range j.NumJobs {
		s.Workers = append(s.Workers, SetupWorker{Name: fmt.Sprintf("Worker %d", k+1), OutstandingIOs: j.IODepth, Specs: all,
			Offset: j.Offset, Size: j.Size, Seed: j.Seed + uint64(k), Buffer: j.Buffer})
	}
	return s
}

// RunMix is clyde block --profile iometer-mix: the job checked as every
// preset's is (internal/preset), then MixSetup run, with Iometer's table.
func RunMix(ctx context.Context, j blockbench.Job) (*result.Block, error) {
	if err := preset.Validate(&j, MixName, nil); err != nil {
		return nil, err
	}
	return Run(ctx, MixSetup(&j))
}
