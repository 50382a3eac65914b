package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/internal/verdict"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, historyCommand()) }

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:      "history",
		Usage:     "list past runs from the history database, newest first",
		UsageText: "clyde history [--host H] [--dir D] [--since 30d] [--limit N]",
		Flags: []cli.Flag{
			dbFlag(),
			&cli.StringFlag{Name: "host", Usage: "only runs made on host `H`"},
			&cli.StringFlag{Name: "dir", Aliases: []string{"d"}, Usage: "only runs on directory or device `D`"},
			&cli.StringFlag{Name: "since", Usage: "only runs newer than an age (30d, 12h, 2w) or a date (2026-01-31)"},
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "at most `N` runs (0: all)"},
		},
		Action: noArgs(historyAction),
	}
}

func historyAction(c *cli.Context) error {
	f := history.Filter{Host: c.String("host"), Limit: c.Int("limit")}
	if f.Limit < 0 {
		return result.Usagef("--limit", "want 0 (all) or more, got %d", f.Limit)
	}
	if d := c.String("dir"); d != "" {
		f.Targets = targetForms(d)
		f.Volume = volumeForm(d)
	}
	if s := c.String("since"); s != "" || c.IsSet("since") {
		t, err := history.ParseSince(s, time.Now())
		if err != nil {
			return &result.UsageError{Msg: err.Error()}
		}
		f.Since = t
	}
	// A missing database is an error (exit 1), not an empty listing: in
	// cron, where HOME and XDG_DATA_HOME often differ from a login shell's,
	// it usually means the runs went to another path.
	store, err := openHistoryReadOnly(c)
	if errors.Is(err, history.ErrNoHistory) {
		return fmt.Errorf("%w: no run has been saved there yet, or they went to another --db/CLYDE_DB", err)
	}
	if err != nil {
		return err
	}
	defer store.Close()
	f.WithJSON = true // for each run's saved regression check
	entries, err := store.Query(c.Context, f)
	if err != nil {
		return err
	}
	out := c.App.Writer
	if len(entries) == 0 {
		fmt.Fprintf(out, "no runs in %s match\n", store.Path())
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tKIND\tLABEL\tHOST\tTARGET\tKEY FLAGS\tKEY FIGURES")
	flagged, partial := false, false
	for _, e := range entries {
		if e.Flags == "" {
			e.Label, e.Flags = describeOlder(c, store, e.ID)
		}
		id := strconv.FormatInt(e.ID, 10)
		switch {
		case e.IsPartial():
			id += "p"
			partial = true
		case e.Flagged != "":
			id += "!"
			flagged = true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", id, e.StartTime.Local().Format("2006-01-02 15:04"),
			e.Kind, dash(e.Label), e.Host, e.Target, dash(e.Flags), dash(e.Summary))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if flagged {
		fmt.Fprintln(out, "! flagged by --check-regression: kept out of later runs' baselines")
	}
	if partial {
		fmt.Fprintln(out, "p partial: a signal or the run's time bound (--max-time) stopped it before it finished; kept out of later runs' baselines and of --auto's sizes")
	}
	if strings.Contains(strings.Join(summaries(entries), " "), compare.ShortMark) {
		fmt.Fprintln(out, compare.ShortNote)
	}
	writeVerdicts(out, entries)
	return nil
}

// writeVerdicts lists, under the table, each listed run's regression check
// as saved with it: the columns the rule found lower or higher than the
// run's baseline, the same verdicts compare, the page and the textfile
// give (internal/verdict).
func writeVerdicts(out io.Writer, entries []history.Entry) {
	var lines []string
	for _, e := range entries {
		runs, err := compare.LoadBytes("#"+strconv.FormatInt(e.ID, 10), e.JSON)
		if err != nil || len(runs) != 1 || runs[0].Check() == nil {
			continue
		}
		rc := runs[0].Check()
		if v := compare.VerdictLine(rc); v != "" && len(rc.Baseline) > 0 {
			lines = append(lines, fmt.Sprintf("%d vs %s: %s", e.ID, strings.Join(rc.Baseline, " "), v))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(out, "\nagainst each run's baseline (--check-regression; the rule: %s):\n", verdict.RuleRef)
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
}

// describeOlder reads the label and key flags of a run saved before the
// history kept them, from its saved result.
func describeOlder(c *cli.Context, store *history.Store, id int64) (label, flags string) {
	e, err := store.Get(c.Context, id)
	if err != nil {
		return "", ""
	}
	runs, err := compare.LoadBytes("#"+strconv.FormatInt(id, 10), e.JSON)
	if err != nil || len(runs) != 1 {
		return "", ""
	}
	return runs[0].Name(), runs[0].KeyFlags()
}

func summaries(es []history.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Summary
	}
	return out
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// targetForms are the forms a directory or device named by --dir may have
// been saved under: as given (older results kept a relative -d as typed),
// absolute, and absolute with symlinks resolved (what runs save now).
// volumeForm is d by its filesystem's identity (compare.Run.Volume), so
// runs on that filesystem mounted elsewhere match too, and runs on a clone
// of it do not; a file that is gone (a block run's file, removed after it)
// is found through its directory. "" where the filesystem has no identity.
func volumeForm(d string) string {
	fs, err := sysinfo.FilesystemOf(d)
	if err == nil && compare.FilesystemID(fs) != "" {
		return compare.VolumeOf(compare.FilesystemID(fs), fs.MountPoint, fs.Path)
	}
	if fs, err = sysinfo.FilesystemOf(filepath.Dir(d)); err == nil {
		return compare.VolumeOf(compare.FilesystemID(fs), fs.MountPoint, filepath.Join(fs.Path, filepath.Base(d)))
	}
	return ""
}

func targetForms(d string) []string {
	forms := []string{d}
	if abs, err := filepath.Abs(d); err == nil {
		forms = append(forms, abs)
		if res, err := filepath.EvalSymlinks(abs); err == nil {
			forms = append(forms, res)
		}
	}
	slices.Sort(forms)
	return slices.Compact(forms)
}
