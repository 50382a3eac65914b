package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/internal/outfile"
	"github.com/clydebench/clyde/internal/prom"
	"github.com/clydebench/clyde/result"
)

// regressionWindow is how many earlier comparable runs --check-regression
// takes the median of.
const regressionWindow = 5

// dbFlag moves the history database; every command that reads or writes it
// takes it.
func dbFlag() cli.Flag {
	return &cli.StringFlag{Name: "db", EnvVars: []string{"CLYDE_DB"},
		Usage: "history database `PATH` (default $XDG_DATA_HOME/clyde/history.db, else ~/.local/share/clyde/history.db)"}
}

// keepFlags are the after-run flags clyde fs and clyde block share.
func keepFlags() []cli.Flag {
	return []cli.Flag{
		dbFlag(),
		&cli.BoolFlag{Name: "no-history", Usage: "do not save this run in the history database"},
		&cli.StringFlag{Name: "check-regression", Usage: "exit 3 when any rate fell more than `PCT` percent below the median of the last 5 comparable runs (same host, target and parameters)"},
		&cli.StringFlag{Name: "prom-textfile", Usage: "write the figures for node_exporter's textfile collector to `PATH` (a file is replaced atomically; a device or FIFO is written in place)"},
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

// keeper is the shared after-run step of clyde fs and clyde block: it saves
// the result to the history, checks for a regression and writes the
// Prometheus textfile. (The engines hold the run lock on their targets.)
type keeper struct {
	stderr     io.Writer
	stdout     io.Writer
	noHistory  bool
	dbPath     string
	regressPct float64
	checkReg   bool
	// result is where the command's result goes (fs --json, block
	// --output), nil when not given; prom is --prom-textfile's file.
	result *outfile.Target
	prom   *outfile.Target
}

// checkKeep reads the after-run flags and refuses, before the run starts
// and before anything is created, what would otherwise fail only after it:
// a --check-regression that is not a percentage (nan, inf, 0, 100), a
// history that cannot take the result (another program's database, a
// damaged file, a directory that cannot be written), and output paths
// that cannot be written (see internal/outfile). Every refusal is a usage
// error naming the flag. --no-history without --check-regression touches
// no database at all.
func checkKeep(c *cli.Context) (*keeper, error) {
	k := &keeper{stderr: c.App.ErrWriter, stdout: c.App.Writer, noHistory: c.Bool("no-history")}
	if s := c.String("check-regression"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0 && v < 100) { // written so that NaN fails too
			return nil, result.Usagef("--check-regression", "want a percentage between 0 and 100, such as 10, got %q", s)
		}
		k.regressPct, k.checkReg = v, true
	}
	if !k.noHistory || k.checkReg {
		p, err := historyPath(c)
		if err != nil {
			return nil, result.Usagef("--db", "%v; give --db PATH, or --no-history", err)
		}
		check := history.CheckWritable
		if k.noHistory {
			check = history.CheckReadable
		}
		if err := check(p); err != nil {
			return nil, result.Usagef("--db", "%v", err)
		}
		k.dbPath = p
	}
	// fs names its result file --json, block --output; c.String is "" for
	// a flag the command does not have.
	for _, name := range []string{"json", "output", "prom-textfile"} {
		p := c.String(name)
		if p == "" {
			continue
		}
		t, err := outfile.Check("--"+name, p)
		if err != nil {
			k.closeOutputs()
			return nil, err
		}
		if name == "prom-textfile" {
			k.prom = t
		} else {
			k.result = t
		}
	}
	if k.result.Same(k.prom) {
		k.closeOutputs()
		return nil, result.Usagef("--prom-textfile", "%s is the file %s writes too; give each its own", c.String("prom-textfile"), k.result.Flag)
	}
	if err := k.notOverHistory(); err != nil {
		k.closeOutputs()
		return nil, err
	}
	return k, nil
}

// beginKeep reads the after-run flags and refuses what would fail after
// the run (checkKeep). The engines take the run lock on their targets.
func beginKeep(c *cli.Context) (*keeper, error) { return checkKeep(c) }

// notOverHistory refuses an output path that is the history database: the
// result would replace every saved run.
func (k *keeper) notOverHistory() error {
	if k.dbPath == "" {
		return nil
	}
	db, err := outfile.Check("--db", k.dbPath)
	if err != nil {
		return nil // not a file an output could replace; CheckWritable judged it
	}
	defer db.Close()
	for _, t := range []*outfile.Target{k.result, k.prom} {
		if db.Same(t) {
			return result.Usagef(t.Flag, "%s is the history database; give another path", t.Path)
		}
	}
	return nil
}

func (k *keeper) closeOutputs() {
	k.result.Close()
	k.prom.Close()
}

// release closes the output directories checkKeep opened; deferred by the
// command.
func (k *keeper) release() {
	if k != nil {
		k.closeOutputs()
	}
}

// after runs once the result is printed and its JSON written. It saves
// the run to the history, checks for a regression and writes the
// Prometheus textfile. A history that cannot be opened or written fails
// the command (exit 1) so that cron mails it, but only now: the result is
// never lost because of it. It returns runErr, or one line joining the
// history's error, a regression (exit 3) and a textfile error.
func (k *keeper) after(ctx context.Context, res any, runErr error) error {
	run, host := keptRun(res)
	if run == nil || runErr != nil {
		return runErr // nothing finished, or a partial run: keep it out of the history
	}
	var err error
	if k.dbPath != "" {
		err = k.keepHistory(ctx, run, host, res)
	}
	if k.prom != nil {
		var reg *prometheus.Registry
		if run.FS != nil {
			reg = prom.FSRegistry(host, run.FS)
		} else {
			reg = prom.BlockRegistry(host, run.Block)
		}
		if perr := k.prom.Write(k.stdout, func(w io.Writer) error { return prom.Encode(w, reg) }); perr != nil {
			err = joinLine(err, perr)
		}
	}
	return err
}

// keepHistory saves run (unless --no-history) and checks it for a
// regression (with --check-regression).
func (k *keeper) keepHistory(ctx context.Context, run *compare.Run, host string, res any) error {
	var store *history.Store
	var err error
	if k.noHistory {
		store, err = history.OpenReadOnly(k.dbPath)
		if errors.Is(err, history.ErrNoHistory) {
			fmt.Fprintf(k.stderr, "clyde: regression check: %v, so no earlier run to compare with\n", err)
			return nil
		}
		if err != nil {
			return fmt.Errorf("regression check could not run: %w", err)
		}
	} else if store, err = history.Open(k.dbPath); err != nil {
		return fmt.Errorf("%w; the result was not saved there", err)
	}
	defer store.Close()
	var saveErr error
	var savedID int64
	if !k.noHistory {
		if savedID, err = saveRun(ctx, store, run, host, res); err != nil {
			saveErr = fmt.Errorf("%w; the result was not saved there", err)
		}
	}
	if k.checkReg {
		if err := k.checkRegression(ctx, store, run, host, savedID); err != nil {
			return joinLine(saveErr, err)
		}
	}
	return saveErr
}

// keptRun wraps a command's result for history and comparison.
func keptRun(res any) (*compare.Run, string) {
	switch r := res.(type) {
	case *result.FS:
		if r == nil {
			return nil, ""
		}
		return &compare.Run{FS: r, Source: "clyde"}, r.Provenance.Hostname
	case *result.Block:
		if r == nil {
			return nil, ""
		}
		return &compare.Run{Block: r, Source: "clyde"}, r.Provenance.Hostname
	}
	return nil, ""
}

func saveRun(ctx context.Context, store *history.Store, run *compare.Run, host string, res any) (int64, error) {
	data, err := encodeResult(res)
	if err != nil {
		return 0, err
	}
	return store.Save(ctx, history.Entry{
		Kind: run.Kind(), Host: host, Target: run.Target(), Params: run.Params(),
		StartTime: run.Provenance().StartTime, Summary: run.Summary(), JSON: data,
	})
}

func encodeResult(res any) ([]byte, error) {
	var b bytes.Buffer
	if err := result.EncodeJSON(&b, res); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// checkRegression compares run with the median of the last comparable runs
// before it (same host, target, kind and parameters).
func (k *keeper) checkRegression(ctx context.Context, store *history.Store, run *compare.Run, host string, savedID int64) error {
	entries, err := store.Query(ctx, history.Filter{Host: host, Target: run.Target(), Kind: run.Kind(),
		Params: run.Params(), BeforeID: savedID, Limit: regressionWindow, WithJSON: true})
	if err != nil {
		return fmt.Errorf("regression check could not run: %w", err)
	}
	var prev []*compare.Run
	for _, e := range entries {
		rs, err := compare.LoadBytes("#"+strconv.FormatInt(e.ID, 10), e.JSON)
		if err != nil || len(rs) != 1 {
			continue
		}
		prev = append(prev, rs[0])
	}
	if len(prev) == 0 {
		fmt.Fprintln(k.stderr, "clyde: regression check: no earlier comparable run in the history yet")
		return nil
	}
	if regs := compare.Regressions(run, prev, k.regressPct); len(regs) > 0 {
		return fmt.Errorf("%w: %s", ErrRegression, compare.RegressionSummary(regs, len(prev)))
	}
	return nil
}
