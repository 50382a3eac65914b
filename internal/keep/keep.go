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

// RegressionWindow is how many earlier comparable runs make the check's
// baseline: the newest ones that were not flagged themselves. Every repeat
// of each is one figure of the baseline; the rule (internal/verdict) says
// how many it needs.
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
	// Checked is the regression check Judge already made (for the
	// result's file), nil when After is to make it.
	Checked *compare.Check
	// Stopped reports whether a run's error is a stop (a signal, the
	// run's time bound) rather than a failure: such a run is kept marked
	// partial (keepPartial). nil: no error is.
	Stopped func(error) bool
	// Kept says where the command wrote the run's result ("in r.json"),
	// for the line of a partial run; "" when nowhere.
	Kept string
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
// A failed run (runErr) is kept out of the history; a stopped one is kept
// marked partial (keepPartial). It returns runErr, or one line joining the
// history's error, a regression and a textfile error.
func After(ctx context.Context, o Options, run *compare.Run, runErr error) error {
	if run != nil && runErr != nil && o.Stopped != nil && o.Stopped(runErr) {
		return keepPartial(ctx, o, run, runErr)
	}
	if run == nil || runErr != nil {
		return runErr
	}
	var err error
	if o.DBPath != "" {
		err = keepHistory(ctx, o, run)
	}
	if o.Prom != nil {
		reg := prom.Registry(run)
		if rc := run.Check(); rc != nil {
			prom.AddCheck(reg, run.Host(), run.Kind(), run.Target(), rc)
		}
		if perr := o.Prom.Write(ctx, o.Stdout, func(w io.Writer) error { return prom.Encode(w, reg) }); perr != nil {
			err = joinLine(err, perr)
		}
	}
	return err
}

// keepHistory checks run for a regression (when asked), saves it (unless
// NoHistory) with the check's record, and flags it when it regressed.
func keepHistory(ctx context.Context, o Options, run *compare.Run) error {
	var store *history.Store
	var err error
	if o.NoHistory {
		store, err = history.OpenReadOnly(o.DBPath)
		if errors.Is(err, history.ErrNoHistory) {
			if o.RegressPct > 0 {
				ck := o.Checked
				if ck == nil {
					c := compare.CheckRegression(run, nil, o.RegressPct)
					ck = &c
				}
				o.weekly(run, ck)
			}
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
	ck, checkErr := o.Checked, error(nil)
	if o.RegressPct > 0 && ck == nil {
		if ck, checkErr = judge(ctx, o, store, run); checkErr == nil {
			run.SetCheck(ck.Record())
		}
	}
	var saveErr error
	var savedID int64
	if !o.NoHistory {
		if savedID, err = save(ctx, store, run); err != nil {
			saveErr = fmt.Errorf("%w; the result was not saved there", err)
		}
	}
	switch {
	case checkErr != nil:
		return joinLine(saveErr, fmt.Errorf("regression check could not run: %w", checkErr))
	case ck != nil:
		return joinLine(saveErr, o.report(ctx, store, run, ck, savedID))
	}
	return saveErr
}

// Judge makes the regression check of run against its baseline in the
// history, read without creating anything, and saves its record with the
// run's result: the command calls it before it writes the result's file,
// so the file holds the check as the history will. nil without
// --check-regression.
func Judge(ctx context.Context, o Options, run *compare.Run) (*compare.Check, error) {
	if o.RegressPct <= 0 || o.DBPath == "" || run == nil {
		return nil, nil
	}
	store, err := history.OpenReadOnly(o.DBPath)
	var ck *compare.Check
	switch {
	case errors.Is(err, history.ErrNoHistory):
		c := compare.CheckRegression(run, nil, o.RegressPct)
		ck = &c
	case err != nil:
		return nil, err
	default:
		defer store.Close()
		if ck, err = judge(ctx, o, store, run); err != nil {
			return nil, err
		}
	}
	run.SetCheck(ck.Record())
	return ck, nil
}

func save(ctx context.Context, store *history.Store, run *compare.Run) (int64, error) {
	return saveFlagged(ctx, store, run, "")
}

// saveFlagged saves run with flagged as its Flagged reason ("" for none).
func saveFlagged(ctx context.Context, store *history.Store, run *compare.Run, flagged string) (int64, error) {
	data, err := run.Encode()
	if err != nil {
		return 0, err
	}
	return store.Save(ctx, history.Entry{
		Kind: run.Kind(), Host: run.Host(), Target: run.Target(), Params: run.Params(),
		StartTime: run.Provenance().StartTime, Summary: run.Summary(), JSON: data,
		Label: run.Name(), Flags: run.KeyFlags(), Volume: run.Volume(), Flagged: flagged,
	})
}

// keepPartial keeps a run a stop ended: saved in the history (unless
// NoHistory) marked partial, so that it never joins a baseline and --auto
// never takes its sizes, with no regression check and no textfile (a
// textfile of some columns would read as a night that measured them). The
// save runs even though ctx was stopped: keeping what finished is what a
// stop promises. It returns runErr's line with where the partial result
// was kept (the history's id, the command's result file), in words.
func keepPartial(ctx context.Context, o Options, run *compare.Run, runErr error) error {
	var kept []string
	var saveErr error
	if o.DBPath != "" && !o.NoHistory {
		id, err := savePartial(context.WithoutCancel(ctx), o.DBPath, run, runErr.Error())
		if err != nil {
			saveErr = fmt.Errorf("the partial result could not be saved in the history: %w", err)
		} else {
			kept = append(kept, fmt.Sprintf("as #%d in the history %s, marked partial (never in a baseline)", id, o.DBPath))
		}
	}
	if o.Kept != "" {
		kept = append(kept, o.Kept)
	}
	switch {
	case len(kept) > 0:
		runErr = fmt.Errorf("%w; the partial result is kept %s", runErr, strings.Join(kept, " and "))
	case saveErr == nil && o.Silent:
		runErr = fmt.Errorf("%w; nothing of it was kept (--no-history, and no result file)", runErr)
	case saveErr == nil:
		runErr = fmt.Errorf("%w; the partial result is the report above", runErr)
	}
	return joinLine(runErr, saveErr)
}

func savePartial(ctx context.Context, db string, run *compare.Run, why string) (int64, error) {
	store, err := history.Open(db)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	return saveFlagged(ctx, store, run, history.Partial(why))
}

// note prints a line for a person watching; Silent drops it.
func (o *Options) note(format string, args ...any) {
	if !o.Silent && o.Stderr != nil {
		fmt.Fprintf(o.Stderr, "clyde: "+format+"\n", args...)
	}
}

// judge compares run (not saved yet) with its baseline: the last
// RegressionWindow comparable runs (same host, target, kind and
// parameters) that were not flagged themselves.
func judge(ctx context.Context, o Options, store *history.Store, run *compare.Run) (*compare.Check, error) {
	entries, err := store.Query(ctx, history.Filter{Host: run.Host(), Target: run.Target(), Volume: run.Volume(), Kind: run.Kind(),
		Params: run.Params(), Limit: RegressionWindow, Unflagged: true, WithJSON: true})
	if err != nil {
		return nil, err
	}
	var baseline []*compare.Run
	for _, e := range entries {
		rs, err := compare.LoadBytes("#"+strconv.FormatInt(e.ID, 10), e.JSON)
		if err != nil || len(rs) != 1 {
			continue
		}
		baseline = append(baseline, rs[0])
	}
	ck := compare.CheckRegression(run, baseline, o.RegressPct)
	return &ck, nil
}

// weekly prints, once a week, the line about the columns the check never
// judges: even with --silent, for a cron user believes every column
// watched and nothing else would tell them; a history's first run says it
// too. The way out it names is one the run did not take: --auto for fixed
// sizes, sizes of one's own (which --auto keeps) for a run --auto sized.
func (o *Options) weekly(run *compare.Run, ck *compare.Check) {
	if len(ck.NeverChecked) == 0 || !firstOfWeek(run, ck.Baseline) || o.Stderr == nil {
		return
	}
	when := "in this run and in every run of its baseline"
	if len(ck.Baseline) == 0 {
		when = "in this run, the history's first"
	}
	fix := "larger sizes (or --auto) make them measurable"
	if run.FS != nil && run.FS.Config.Auto != nil {
		fix = "--auto sized them; larger sizes given with -s, -f or -n (which --auto keeps) make them measurable"
	}
	fmt.Fprintf(o.Stderr, "clyde: note: the regression check cannot judge %s: each ran under 0.5 s %s; %s (said once a week)\n",
		strings.Join(ck.NeverChecked, ", "), when, fix)
}

// notes prints the weekly line and, when nothing regressed and unless
// Silent, the check's line.
func (o *Options) notes(run *compare.Run, ck *compare.Check) {
	o.weekly(run, ck)
	switch {
	case ck.Regressed():
	case len(ck.Baseline) == 0 && o.NoHistory:
		o.note("regression check: no earlier comparable run in the history")
	case len(ck.Baseline) == 0:
		o.note("regression check: no earlier comparable run in the history; this run starts the baseline")
	default:
		o.note("regression check: %s", ck.Summary())
	}
}

// report prints the check's notes and, when run regressed, flags it in the
// history (savedID, 0 when not saved), so it stays out of later baselines,
// and returns the one-line regression error.
func (o *Options) report(ctx context.Context, store *history.Store, run *compare.Run, ck *compare.Check, savedID int64) error {
	o.notes(run, ck)
	if !ck.Regressed() {
		return nil
	}
	err := fmt.Errorf("%w: %s", ErrRegression, ck.Summary())
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
