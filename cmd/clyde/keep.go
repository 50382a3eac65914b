package main

import (
	"context"
	"io"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/internal/keep"
	"github.com/clydebench/clyde/internal/outfile"
	"github.com/clydebench/clyde/result"
)

// dbFlag moves the history database; every command that reads or writes it
// takes it.
func dbFlag() cli.Flag {
	return &cli.StringFlag{Name: "db", EnvVars: []string{"CLYDE_DB"},
		Usage: "history database `PATH` (default $XDG_DATA_HOME/clyde/history.db, else ~/.local/share/clyde/history.db)"}
}

// keepFlags are the after-run flags every command that runs a benchmark
// takes (fs, block, copy, iometer, orion), with the run's time bound.
func keepFlags() []cli.Flag {
	return []cli.Flag{
		dbFlag(),
		&cli.BoolFlag{Name: "no-history", Usage: "do not save this run in the history database"},
		&cli.StringFlag{Name: "check-regression", Usage: "exit 3 when a rate fell more than `PCT` percent below the mean of the last 5 comparable runs (same host, target and parameters) that were not flagged, and the significance rule (docs/results.md#significance) calls the fall real"},
		&cli.StringFlag{Name: "prom-textfile", Usage: "write the figures for node_exporter's textfile collector to `PATH` (a file is replaced atomically; a device or FIFO is written in place)"},
		maxTimeFlag(),
		&cli.BoolFlag{Name: "silent", Usage: "for cron: print nothing when all is well (no tables, CSV, report or notes); anything wrong is one line on stderr and a non-zero exit; --json, --output and --prom-textfile files are still written"},
	}
}

// historyPath resolves --db / CLYDE_DB / the XDG default.
func historyPath(c *cli.Context) (string, error) {
	if p := c.String("db"); p != "" {
		return p, nil
	}
	return history.DefaultPath(os.Getenv)
}

// openHistoryReadOnly opens the history for the commands that only read it
// (history, compare, report); they create nothing, and a missing database
// is history.ErrNoHistory.
func openHistoryReadOnly(c *cli.Context) (*history.Store, error) {
	path, err := historyPath(c)
	if err != nil {
		return nil, err
	}
	return history.OpenReadOnly(path)
}

// keeper is the command's side of the after-run step (internal/keep): the
// flags read before the run, the output files checked, then keep.After.
type keeper struct {
	// ctx is the command's: the regression check's history query stops
	// with it.
	ctx  context.Context
	opts keep.Options
	// result is where the command's result goes (fs --json, block
	// --output), nil when not given.
	result *outfile.Target
}

// beginKeep reads the after-run flags and refuses, before the run starts
// and before anything is created, what would otherwise fail only after it:
// a --check-regression that is not a percentage (nan, inf, 0, 100), a
// history that cannot take the result, and output paths that cannot be
// written (see internal/outfile). Every refusal is a usage error naming the
// flag. --no-history without --check-regression touches no database at
// all. The engines take the run lock on their targets.
func beginKeep(c *cli.Context) (*keeper, error) {
	k := &keeper{ctx: c.Context, opts: keep.Options{Stdout: c.App.Writer, Stderr: c.App.ErrWriter, NoHistory: c.Bool("no-history"),
		Silent: c.Bool("silent"), Stopped: stopped}}
	if s := c.String("check-regression"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0 && v < 100) { // written so that NaN fails too
			return nil, result.Usagef("--check-regression", "want a percentage between 0 and 100, such as 10, got %q", s)
		}
		k.opts.RegressPct = v
	}
	if !k.opts.NoHistory || k.opts.RegressPct > 0 {
		p, err := historyPath(c)
		if err != nil {
			return nil, result.Usagef("--db", "%v; give --db PATH, or --no-history", err)
		}
		k.opts.DBPath = p
	}
	// fs names its result file --json, block --output; c.String is "" for
	// a flag the command does not have.
	for _, name := range []string{"json", "output", "prom-textfile"} {
		p := c.String(name)
		if p == "" && !c.IsSet(name) {
			continue // an empty value given is refused by Check, not ignored
		}
		t, err := outfile.Check("--"+name, p)
		if err != nil {
			k.release()
			return nil, err
		}
		if name == "prom-textfile" {
			k.opts.Prom = t
		} else {
			k.result = t
		}
	}
	if k.result.Same(k.opts.Prom) {
		k.release()
		return nil, result.Usagef("--prom-textfile", "%s is the file %s writes too; give each its own", c.String("prom-textfile"), k.result.Flag)
	}
	if err := k.opts.Check(k.result); err != nil {
		k.release()
		return nil, err
	}
	return k, nil
}

// release closes the output directories beginKeep opened; deferred by the
// command.
func (k *keeper) release() {
	if k != nil {
		k.result.Close()
		k.opts.Prom.Close()
	}
}

// writeResult writes the command's result file (fs --json, block
// --output), when one was given, through outfile's one rule for a run's
// result: a run that failed before it measured anything replaces no file.
// The regression check is made first, so the file holds it as the
// history will (keep.Judge); a check that cannot read the history is left
// to after, which reports it.
func (k *keeper) writeResult(out io.Writer, run *compare.Run, runErr error, fill func(io.Writer) error) error {
	if k.result == nil {
		return nil
	}
	if runErr == nil && k.opts.Checked == nil {
		if ck, err := keep.Judge(k.ctx, k.opts, run); err == nil {
			k.opts.Checked = ck
		}
	}
	ok := measured(run, runErr)
	err := k.result.WriteResult(k.ctx, out, ok, fill)
	if ok && err == nil {
		k.opts.Kept = "in " + k.result.Path
		if k.result.Path == "-" {
			k.opts.Kept = "on standard output"
		}
	}
	return err
}

// stopped reports whether a run's error is a stop (a signal, the run's
// time bound), whose partial result is kept, rather than a failure.
func stopped(err error) bool {
	code := exitCode(err)
	return code == exitInterrupted || code == exitOverTime
}

// noResult ends a many-client job that did not finish (jobAborted): no
// result anywhere and no history, since rank 0's part alone is not the
// job's. A result file keeps the previous run's; an in-place target (a
// FIFO whose reader waits) is opened and closed, so its reader sees the end.
func (k *keeper) noResult(out io.Writer, runErr error) error {
	if k.result != nil {
		if err := k.result.WriteResult(k.ctx, out, false, func(io.Writer) error { return nil }); err != nil {
			return joinLine(runErr, err)
		}
	}
	return runErr
}

// measured reports whether a run's result holds anything worth a file: it
// measured something, or it ended without an error, or a stop (^C,
// timeout) ended it, whose partial result says what was stopped. A run
// that failed while preparing has none of these.
func measured(run *compare.Run, runErr error) bool {
	if runErr == nil || stopped(runErr) {
		return true
	}
	switch {
	case run == nil:
		return false
	case run.Copy != nil:
		return len(run.Copy.Results) > 0
	case run.Block != nil:
		return len(run.Block.Jobs) > 0
	case run.FS != nil:
		for _, r := range run.FS.Runs {
			for _, t := range r.Tests {
				if t.Ran {
					return true
				}
			}
		}
	}
	return false
}

// after runs once the result is printed and its file written (keep.After).
func (k *keeper) after(ctx context.Context, run *compare.Run, runErr error) error {
	return keep.After(ctx, k.opts, run, runErr)
}
