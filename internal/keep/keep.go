// Package keep is what happens to a finished run after its report is
// written: it is saved in the history, checked against the comparable runs
// before it (--check-regression), and written as a Prometheus textfile. It
// works on compare.Run, the one wrapper that every result kind (fs, block,
// copy) has, so no step switches on the kind.
package keep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/internal/outfile"
	"github.com/clydebench/clyde/internal/prom"
	"github.com/clydebench/clyde/result"
)

// ErrRegression is returned when the regression check finds a column that
// fell (exit code 3).
var ErrRegression = errors.New("regression found")

// RegressionWindow is how many earlier comparable runs the check takes the
// median of: the newest ones that were not flagged themselves. The check
// alarms only once compare.MinBaseline of them exist.
const RegressionWindow = 5

// Options say what to keep of a run.
type Options struct {
	// DBPath is the history; "" touches no database.
	DBPath string
	// NoHistory does not save the run (a regression check still reads).
	NoHistory bool
	// RegressPct is the regression threshold in percent; 0 checks nothing.
	RegressPct float64
	// Prom is the textfile to write, nil for none.
	Prom *outfile.Target
	// Stdout is where an output of "-" goes; Stderr gets the notes.
	Stdout, Stderr io.Writer
	// Silent prints no notes (what the regression check compared, that
	// the baseline is still being built): a cron job hears only of what
	// went wrong, as the one line of the error After returns.
	Silent bool
}

// Check refuses, before the run starts and before anything is created, a
// history that could not take the result (another program's database, a
// damaged file, a directory that cannot be written) and an output that is
// the history database (the result would replace every saved run). Every
// refusal is a usage error naming the flag.
func (o *Options) Check(outputs ...*outfile.Target) error {
	if o.DBPath == "" {
		return nil
	}
	check := history.CheckWritable
	if o.NoHistory {
		check = history.CheckReadable
	}
	if err := check(o.DBPath); err != nil {
		return result.Usagef("--db", "%v", err)
	}
	db, err := outfile.Check("--db", o.DBPath)
	if err != nil {
		return nil // not a file an output could replace; check judged it
	}
	defer db.Close()
	for _, t := range append(outputs, o.Prom) {
		if db.Same(t) {
			return result.Usagef(t.Flag, "%s is the history database; give another path", t.Path)
		}
	}
	return nil
}

// After runs once the result is printed and its file written. It saves the
// run to the history, checks for a regression and writes the Prometheus
// textfile. A history that cannot be opened or written fails (exit 1) so
// that cron mails it, but only now: the result is never lost because of it.
// A partial run (runErr) is kept out of the history. It returns runErr, or
// one line joining the history's error, a regression and a textfile error.
func After(ctx context.Context, o Options, run *compare.Run, runErr error) error {
	if run == nil || runErr != nil {
		return runErr
	}
	var err error
	if o.DBPath != "" {
		err = keepHistory(ctx, o, run)
	}
	if o.Prom != nil {
		reg := prom.Registry(run)
		if perr := o.Prom.Write(ctx, o.Stdout, func(w io.Writer) error { return prom.Encode(w, reg) }); perr != nil {
			err = joinLine(err, perr)
		}
	}
	return err
}

// keepHistory saves run (unless NoHistory) and checks it for a regression.
func keepHistory(ctx context.Context, o Options, run *compare.Run) error {
	var store *history.Store
	var err error
	if o.NoHistory {
		store, err = history.OpenReadOnly(o.DBPath)
		if errors.Is(err, history.ErrNoHistory) {
			o.note("regression check: %v, so no earlier run to compare with", err)
			return nil
		}
		if err != nil {
			return fmt.Errorf("regression check could not run: %w", err)
		}
	} else if store, err = history.Open(o.DBPath); err != nil {
		return fmt.Errorf("%w; the result was not saved there", err)
	}
	defer store.Close()
	var saveErr error
	var savedID int64
	if !o.NoHistory {
		if savedID, err = save(ctx, store, run); err != nil {
			saveErr = fmt.Errorf("%w; the result was not saved there", err)
		}
	}
	if o.RegressPct > 0 {
		if err := checkRegression(ctx, o, store, run, savedID); err != nil {
			return joinLine(saveErr, err)
		}
	}
	return saveErr
}

func save(ctx context.Context, store *history.Store, run *compare.Run) (int64, error) {
	data, err := run.Encode()
	if err != nil {
		return 0, err
	}
	return store.Save(ctx, history.Entry{
		Kind: run.Kind(), Host: run.Host(), Target: run.Target(), Params: run.Params(),
		StartTime: run.Provenance().StartTime, Summary: run.Summary(), JSON: data,
		Label: run.Name(), Flags: run.KeyFlags(), Volume: run.Volume(),
	})
}

// note prints a line for a person watching; Silent drops it.
func (o *Options) note(format string, args ...any) {
	if !o.Silent && o.Stderr != nil {
		fmt.Fprintf(o.Stderr, "clyde: "+format+"\n", args...)
	}
}

// checkRegression compares run with its baseline: the last
// RegressionWindow comparable runs before it (same host, target, kind and
// parameters) that were not flagged themselves. With fewer than
// compare.MinBaseline it says so and does not alarm. A run that regressed
// is flagged in the history, so it stays out of later baselines.
func checkRegression(ctx context.Context, o Options, store *history.Store, run *compare.Run, savedID int64) error {
	entries, err := store.Query(ctx, history.Filter{Host: run.Host(), Target: run.Target(), Volume: run.Volume(), Kind: run.Kind(),
		Params: run.Params(), BeforeID: savedID, Limit: RegressionWindow, Unflagged: true, WithJSON: true})
	if err != nil {
		return fmt.Errorf("regression check could not run: %w", err)
	}
	var baseline []*compare.Run
	for _, e := range entries {
		rs, err := compare.LoadBytes("#"+strconv.FormatInt(e.ID, 10), e.JSON)
		if err != nil || len(rs) != 1 {
			continue
		}
		baseline = append(baseline, rs[0])
	}
	if len(baseline) < compare.MinBaseline {
		o.note("regression check: %d earlier comparable run(s) in the history, %d needed before it can alarm; this run joins the baseline",
			len(baseline), compare.MinBaseline)
		return nil
	}
	ck := compare.CheckRegression(run, baseline, o.RegressPct)
	if len(ck.NeverChecked) > 0 && firstOfWeek(run, baseline) && o.Stderr != nil {
		// Said even with --silent, but once a week: a cron user believes
		// every column watched, and nothing else would tell them.
		fmt.Fprintf(o.Stderr, "clyde: note: the regression check cannot judge %s: each ran under 0.5 s in this run and in the runs before it; "+
			"larger sizes (or --auto) make them measurable (said once a week)\n", strings.Join(ck.NeverChecked, ", "))
	}
	if len(ck.Regressions) == 0 {
		o.note("regression check: %s", ck.Summary())
		return nil
	}
	err = fmt.Errorf("%w: %s", ErrRegression, ck.Summary())
	if savedID > 0 {
		if ferr := store.Flag(ctx, savedID, ck.Summary()); ferr != nil {
			err = joinLine(err, fmt.Errorf("the run could not be flagged, so it may join later baselines: %w", ferr))
		}
	}
	return err
}

// Earlier returns up to limit runs of kind made on host, newest first, read
// from the history without creating anything: none when there is no
// history (DBPath "" or no file yet). clyde fs --auto looks in them for
// sizes to reuse.
func (o *Options) Earlier(ctx context.Context, kind, host string, limit int) ([]*compare.Run, error) {
	if o.DBPath == "" {
		return nil, nil
	}
	store, err := history.OpenReadOnly(o.DBPath)
	if errors.Is(err, history.ErrNoHistory) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer store.Close()
	entries, err := store.Query(ctx, history.Filter{Kind: kind, Host: host, Limit: limit, WithJSON: true})
	if err != nil {
		return nil, err
	}
	var runs []*compare.Run
	for _, e := range entries {
		rs, err := compare.LoadBytes("#"+strconv.FormatInt(e.ID, 10), e.JSON)
		if err == nil && len(rs) == 1 {
			runs = append(runs, rs[0])
		}
	}
	return runs, nil
}

// firstOfWeek reports whether run is the first of its ISO week among the
// comparable runs of the baseline, so a note about them is said once a week.
func firstOfWeek(run *compare.Run, baseline []*compare.Run) bool {
	y, w := run.Provenance().StartTime.ISOWeek()
	for _, b := range baseline {
		if by, bw := b.Provenance().StartTime.ISOWeek(); by == y && bw == w {
			return false
		}
	}
	return true
}

// joinLine adds err to prev on the same line: errors.Join would print two.
func joinLine(prev, err error) error {
	if prev == nil {
		return err
	}
	if err == nil {
		return prev
	}
	return fmt.Errorf("%w; %w", prev, err)
}
