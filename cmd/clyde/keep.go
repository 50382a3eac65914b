package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/prom"
	"github.com/clydebench/clyde/internal/runlock"
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
		&cli.StringFlag{Name: "prom-textfile", Usage: "write the figures for node_exporter's textfile collector to `PATH` (atomically)"},
	}
}

// historyPath resolves --db / CLYDE_DB / the XDG default.
func historyPath(c *cli.Context) (string, error) {
	if p := c.String("db"); p != "" {
		return p, nil
	}
	return history.DefaultPath(os.Getenv)
}

// openHistory opens the history for commands that need it.
func openHistory(c *cli.Context) (*history.Store, error) {
	path, err := historyPath(c)
	if err != nil {
		return nil, err
	}
	return history.Open(path)
}

// keeper is the shared after-run step of clyde fs and clyde block: it holds
// the run lock on the target while the run goes, then saves the result to
// the history, checks for a regression and writes the Prometheus textfile.
type keeper struct {
	lock       *targetLock
	stderr     io.Writer
	noHistory  bool
	dbPath     string
	regressPct float64
	checkReg   bool
	promPath   string
}

// beginKeep reads the after-run flags and takes the run lock on target (a
// directory or device). A lock another run holds is an error naming it.
func beginKeep(c *cli.Context, target string) (*keeper, error) {
	k := &keeper{stderr: c.App.ErrWriter, noHistory: c.Bool("no-history"), promPath: c.String("prom-textfile")}
	if s := c.String("check-regression"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 || v >= 100 {
			return nil, result.Usagef("--check-regression", "want a percentage between 0 and 100, such as 10, got %q", s)
		}
		k.regressPct, k.checkReg = v, true
	}
	if !k.noHistory || k.checkReg {
		p, err := historyPath(c)
		if err != nil {
			fmt.Fprintf(k.stderr, "clyde: warning: %v\n", err)
		}
		k.dbPath = p
	}
	if target != "" {
		lock, err := lockTarget(target)
		switch {
		case errors.Is(err, result.ErrNotSupported):
			fmt.Fprintf(k.stderr, "clyde: warning: no run lock here: %v\n", err)
		case err != nil:
			return nil, err
		}
		k.lock = lock
	}
	return k, nil
}

// lockTarget takes the run lock of a block run on the target itself: the
// file or device when it exists, else the directory it will be made in.
// The descriptor stays open while the lock is held.
func lockTarget(target string) (*targetLock, error) {
	if f, err := osio.OpenFile(target, osio.ReadOnly); err == nil {
		l, err := runlock.File(f, target)
		if err != nil {
			f.Close()
			return nil, err
		}
		return &targetLock{l, f.Close}, nil
	}
	dir := filepath.Dir(target)
	d, err := osio.OpenDir(dir)
	if err != nil {
		return nil, result.Usagef("--filename", "%v", err)
	}
	l, err := runlock.Dir(d, dir, nil)
	if err != nil {
		d.Close()
		return nil, err
	}
	return &targetLock{l, d.Close}, nil
}

// targetLock is a held lock and the descriptor it is held on.
type targetLock struct {
	lock  *runlock.Lock
	close func() error
}

// Release gives the lock back and closes its descriptor.
func (t *targetLock) Release() error {
	if t == nil {
		return nil
	}
	err := t.lock.Release()
	if cerr := t.close(); err == nil {
		err = cerr
	}
	return err
}

// release gives the run lock back; deferred by the command.
func (k *keeper) release() {
	if k != nil {
		_ = k.lock.Release()
	}
}

// after runs once the result is printed and its JSON written. History
// trouble is a warning only: a result is never lost because of it. It
// returns runErr, joined with a regression (exit 3) or a textfile error.
func (k *keeper) after(ctx context.Context, res any, runErr error) error {
	run, host := keptRun(res)
	if run == nil || runErr != nil {
		return runErr // nothing finished, or a partial run: keep it out of the history
	}
	var store *history.Store
	if k.dbPath != "" {
		s, err := history.Open(k.dbPath)
		if err != nil {
			fmt.Fprintf(k.stderr, "clyde: warning: %v; the result was not saved there\n", err)
		} else {
			store = s
			defer store.Close()
		}
	}
	var savedID int64
	if store != nil && !k.noHistory {
		id, err := saveRun(ctx, store, run, host, res)
		if err != nil {
			fmt.Fprintf(k.stderr, "clyde: warning: %v; the result was not saved there\n", err)
		}
		savedID = id
	}
	var errs []error
	if k.checkReg && store != nil {
		if err := k.checkRegression(ctx, store, run, host, savedID); err != nil {
			errs = append(errs, err)
		}
	}
	if k.promPath != "" {
		var reg *prometheus.Registry
		switch {
		case run.FS != nil:
			reg = prom.FSRegistry(host, run.FS)
		case run.Copy != nil:
			reg = prom.CopyRegistry(host, run.Copy)
		default:
			reg = prom.BlockRegistry(host, run.Block)
		}
		if err := prom.Write(k.promPath, reg); err != nil {
			errs = append(errs, fmt.Errorf("--prom-textfile %s: %w", k.promPath, err))
		}
	}
	return errors.Join(errs...)
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
	case *result.Copy:
		if r == nil {
			return nil, ""
		}
		return &compare.Run{Copy: r, Source: "clyde"}, r.Provenance.Hostname
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
		fmt.Fprintf(k.stderr, "clyde: warning: regression check skipped: %v\n", err)
		return nil
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
