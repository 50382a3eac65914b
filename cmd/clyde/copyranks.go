package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/copybench"
	"github.com/clydebench/clyde/internal/copyreport"
	"github.com/clydebench/clyde/result"
)

// copyRanks is stepRanks for clyde copy: a step is one set copied with
// one method, a rank's part its figure (copybench.Phases).
type copyRanks struct {
	*stepRanks[result.CopyFigure]
}

// startCopyRanks joins the job the launcher started, or returns nil for a
// single process; rank 0 then holds the run locks on -d and --to for
// every rank.
func startCopyRanks(c *cli.Context, o copybench.Options) (*copyRanks, error) {
	hash, err := copyHash(o, c.IsSet("seed"))
	if err != nil {
		return nil, err
	}
	rj, err := startStepJob(c, hash, func(size int) error {
		if o.Method == copybench.All {
			return result.Usagef("--method", "all probes what works on each host, and the ranks must copy alike; give one method across %d ranks", size)
		}
		return nil
	})
	if rj == nil || err != nil {
		return nil, err
	}
	if rj.info.Rank == 0 {
		for _, d := range []string{o.Dir, o.To} {
			if d == "" {
				continue
			}
			if err := rj.lockDir(d); err != nil {
				rj.job.Abort(err)
				rj.release()
				return nil, err
			}
		}
	}
	return &copyRanks{stepRanks: newStepRanks[result.CopyFigure](rj)}, nil
}

// copyHash names the copy every rank must run the same: the options
// without the directories' names (each host's mount) and, when nobody
// chose it, the seed each process drew.
func copyHash(o copybench.Options, seedSet bool) (string, error) {
	o.Dir, o.To = "", ""
	if !seedSet {
		o.Seed = 0
	}
	return hashOf(o)
}

// Before is the common start of a step.
func (cr *copyRanks) Before(ctx context.Context, step int, done func() int64) error {
	return cr.before(ctx, step, done)
}

// After sends this rank's figure to rank 0 and waits for every rank.
func (cr *copyRanks) After(ctx context.Context, step int, fig result.CopyFigure) error {
	return cr.after(ctx, step, fig, fig.Files)
}

func (cr *copyRanks) finish(ctx context.Context, res *result.Copy, runErr error) error {
	return cr.rj.end(ctx, runErr, func() error {
		if res == nil {
			return nil
		}
		return cr.merge(res)
	})
}

// merge makes rank 0's result the job's: every figure summed over the
// ranks (copybench.MergeRanks), with the per-step, per-rank and per-host
// rows.
func (cr *copyRanks) merge(res *result.Copy) error {
	job := cr.jobOf("private-dir")
	steps := cr.gathered()
	if len(steps) != len(res.Results) {
		return fmt.Errorf("rank 0 copied %d steps, the ranks reported %d", len(res.Results), len(steps))
	}
	for i, g := range steps {
		m, err := copybench.MergeRanks(g.ranks)
		if err != nil {
			return fmt.Errorf("%s with %s: %w", res.Results[i].Set, res.Results[i].Method, err)
		}
		res.Results[i] = m
		addRows(job, cr.rj.job.Peers(), g, m.Set+" "+m.Method, "MB/s", func(f result.CopyFigure) rankPart {
			return rankPart{items: f.Files, bytes: f.Bytes, ns: f.ElapsedNs}
		}, func(_, bytes, ns int64) float64 { return perSec(float64(bytes)/1e6, ns) })
	}
	res.Job = job
	res.Notes = append(res.Notes, fmt.Sprintf("%d ranks on %d host(s) (%s), each in a private directory of its own: every set's files and bytes are summed over the ranks and its time is the slowest rank's (mdtest's last done)", job.Ranks, len(job.Hosts), job.Launcher))
	return nil
}

// rankCopyAction is a rank other than 0: it copies its part and prints
// nothing (its own table with --per-rank).
func rankCopyAction(c *cli.Context, cr *copyRanks, o copybench.Options) error {
	o.Progress = nil
	res, runErr := copybench.Run(cr.rj.ctx, o)
	runErr = cr.finish(c.Context, res, runErr)
	if res != nil && !jobAborted(runErr) && len(res.Results) > 0 && c.Bool("per-rank") && !c.Bool("quiet") {
		if err := copyreport.Text(c.App.Writer, res); err != nil && runErr == nil {
			runErr = err
		}
	}
	return runErr
}
