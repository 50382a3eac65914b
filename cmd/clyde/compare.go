package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, compareCommand()) }

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "print runs side by side, per column, with the % change against the first",
		UsageText: "clyde compare A B [C ...]\n\nEach argument is a history id (12 or #12), a clyde JSON result, a bonnie++ CSV file or line,\na bonnie++ text report (1.96/1.97 or 2.00a layout), or - for standard input. A file with several\nruns adds them all. Files are regular files of at most 64 MiB.",
		Flags: []cli.Flag{dbFlag(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text|csv|json: csv and json keep every figure in its own unit, one line (object) per column and run"},
		},
		Action: compareAction,
	}
}

// loadArgs resolves every argument: files (regular files up to
// compare.MaxInputBytes), - for stdin, history ids. The history is opened,
// read-only, only when an argument needs it; the first ^C stops reading.
func loadArgs(c *cli.Context, args []string) ([]*compare.Run, error) {
	var store *history.Store
	defer func() {
		if store != nil {
			store.Close()
		}
	}()
	lookup := func(id int64) ([]byte, error) {
		if store == nil {
			s, err := openHistoryReadOnly(c)
			if errors.Is(err, history.ErrNoHistory) {
				return nil, fmt.Errorf("%w, so id %d cannot be looked up (check --db or CLYDE_DB)", err, id)
			}
			if err != nil {
				return nil, err
			}
			store = s
		}
		e, err := store.Get(c.Context, id)
		if err != nil {
			return nil, err
		}
		return e.JSON, nil
	}
	in := &compare.Input{Lookup: lookup, Stdin: c.App.Reader}
	var runs []*compare.Run
	for _, a := range args {
		rs, err := in.Load(c.Context, a)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	return runs, nil
}

var compareFormats = []string{"text", "csv", "json"}

func compareAction(c *cli.Context) error {
	args, format, output, err := trailingReportFlags(c.Args().Slice(), c.String("format"), "")
	if err != nil {
		return err
	}
	if output != "" {
		return result.Usagef("--output", "compare prints to standard output; redirect it, or use clyde report -o FILE")
	}
	if !slices.Contains(compareFormats, format) {
		return result.Usagef("--format", "unknown format %q; accepted: %s", format, strings.Join(compareFormats, ", "))
	}
	if len(args) < 1 {
		return &result.UsageError{Msg: "compare: give at least two runs (history ids, result files or bonnie++ output)"}
	}
	runs, err := loadArgs(c, args)
	if err != nil {
		return err
	}
	if len(runs) < 2 {
		return &result.UsageError{Msg: fmt.Sprintf("compare: the arguments hold %d run, want at least two", len(runs))}
	}
	t, err := compare.Compare(runs)
	if err != nil {
		return err
	}
	switch format {
	case "csv":
		return t.WriteCSV(c.App.Writer)
	case "json":
		return t.WriteJSON(c.App.Writer)
	}
	return t.WriteText(c.App.Writer)
}
