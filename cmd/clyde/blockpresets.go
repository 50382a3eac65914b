package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/blockpreset"
	"github.com/clydebench/clyde/cdm"
	"github.com/clydebench/clyde/fiojob"
	"github.com/clydebench/clyde/internal/preset"
	"github.com/clydebench/clyde/iometer"
	"github.com/clydebench/clyde/orion"
	"github.com/clydebench/clyde/result"
)

// blockPresetNames are --profile's presets, in the order help and the
// shell completions list them; each is a package of its own.
var blockPresetNames = []string{cdm.Name, iometer.MixName, orion.ProfileName, blockpreset.SweepName, blockpreset.SustainedName}

// blockPreset is a --profile of clyde block: the package that plans and
// runs it over the job the flags make.
type blockPreset struct {
	name string
	// cdm is CrystalDiskMark's options (cdmOptions), for cdm alone.
	cdm *cdm.Options
	// run runs the job through the preset.
	run func(ctx context.Context, j blockbench.Job) (*result.Block, error)
	// plan, for a preset whose workloads carry the job's fio logs, is its
	// plan (blockLogNames); nil for one that writes none.
	plan func(j blockbench.Job) (blockbench.Plan, error)
}

// parseBlockPreset is --profile: nil for none (the job itself).
func parseBlockPreset(name string) (*blockPreset, error) {
	p := &blockPreset{name: name}
	switch name {
	case "":
		return nil, nil
	case cdm.Name:
		o := cdm.DefaultOptions()
		p.cdm = &o
		p.run = func(ctx context.Context, j blockbench.Job) (*result.Block, error) { return cdm.Run(ctx, j, *p.cdm) }
	case iometer.MixName:
		p.run = iometer.RunMix
	case orion.ProfileName:
		p.run = orion.RunJob // ORION's planner, for one disk
	case blockpreset.SweepName:
		p.run = blockpreset.RunSweep
		p.plan = func(j blockbench.Job) (blockbench.Plan, error) {
			s, err := blockpreset.PlanSweep(j)
			if err != nil {
				return blockbench.Plan{}, err
			}
			return s.Plan, nil
		}
	case blockpreset.SustainedName:
		p.run = blockpreset.RunSustained
		p.plan = func(j blockbench.Job) (blockbench.Plan, error) { return blockpreset.PlanSustained(j), nil }
	default:
		return nil, result.Usagef("--profile", "unknown profile %q; accepted: cdm, iometer-mix, orion, bs-sweep, sustained", name)
	}
	return p, nil
}

// validate refuses what the preset cannot run, before anything is
// touched: the rules every preset's job meets, and cdm's own.
func (p *blockPreset) validate(j *blockbench.Job) error {
	if p.cdm != nil {
		return p.cdm.Validate(j)
	}
	return preset.Validate(j, p.name, nil)
}

// blockLogNames are the fio logs the job writes, run by itself or by the
// preset p (fiojob.LogNames of its plan); nil when it writes none.
func blockLogNames(j *blockbench.Job, p *blockPreset) []string {
	switch {
	case p == nil:
		return fiojob.JobLogNames(j)
	case p.plan == nil:
		return nil
	}
	if l, ok := j.Log.(fiojob.LogSpec); !ok || !l.Any() {
		return nil
	}
	plan, err := p.plan(*j)
	if err != nil {
		return nil // refused when it runs
	}
	return fiojob.LogNames(plan)
}

// cdmOptions reads the flags only --profile cdm takes.
func cdmOptions(c *cli.Context, p *blockPreset) error {
	names := []string{"cdm-preset", "test-data", "mix", "mix-read", "interval", "passes-kept", "buffered", "fill"}
	if p == nil || p.cdm == nil {
		for _, n := range append(names, "passes") {
			if c.IsSet(n) {
				return result.Usagef("--"+n, "only goes with --profile cdm")
			}
		}
		return nil
	}
	o := p.cdm
	var err error
	if o.Preset, err = cdm.ParsePreset(c.String("cdm-preset")); err != nil {
		return err
	}
	if o.Data, err = cdm.ParseData(c.String("test-data")); err != nil {
		return err
	}
	if o.Aggregate, err = cdm.ParseAggregate(c.String("passes-kept")); err != nil {
		return err
	}
	if o.Interval, err = blockbench.ParseDuration("--interval", c.String("interval")); err != nil {
		return err
	}
	if s := c.String("fill"); s != "" {
		if o.Fill, err = blockbench.ParseFill(s); err != nil {
			return err
		}
	}
	if c.IsSet("direct") && !c.Bool("direct") {
		return result.Usagef("--direct", "cdm always runs unbuffered, as CrystalDiskMark does; --buffered runs it through the page cache")
	}
	o.Passes = c.Int("passes")
	o.Mix, o.MixRead, o.Buffered = c.Bool("mix"), c.Int("mix-read"), c.Bool("buffered")
	if c.IsSet("mix-read") && !o.Mix {
		return result.Usagef("--mix-read", "only goes with --mix")
	}
	return nil
}
