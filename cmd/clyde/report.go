package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/copyreport"
	"github.com/clydebench/clyde/internal/fsreport"
	"github.com/clydebench/clyde/internal/htmlreport"
	"github.com/clydebench/clyde/internal/outfile"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, reportCommand()) }

var reportFormats = []string{"text", "csv", "json", "html"}

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "render saved results again: text, CSV, JSON, or one self-contained HTML page with charts",
		UsageText: "clyde report FILE|ID [FILE|ID ...] [--format text|csv|json|html] [--output FILE]",
		Flags: []cli.Flag{
			dbFlag(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text|csv|json|html"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout (a file is replaced atomically, a device or FIFO written in place)"},
		},
		Action: reportAction,
	}
}

func reportAction(c *cli.Context) error {
	args, format, output, err := trailingReportFlags(c.Args().Slice(), c.String("format"), c.String("output"))
	if err != nil {
		return err
	}
	if !slices.Contains(reportFormats, format) {
		return result.Usagef("--format", "unknown format %q; accepted: %s", format, strings.Join(reportFormats, ", "))
	}
	if len(args) < 1 {
		return &result.UsageError{Msg: "report: give a result file, a bonnie++ output file or a history id"}
	}
	var target *outfile.Target
	if output != "" || c.IsSet("output") {
		// Checked before any input is read; written only once all is rendered.
		if target, err = outfile.Check("--output", output); err != nil {
			return err
		}
		defer target.Close()
	}
	runs, err := loadArgs(c, args)
	if err != nil {
		return err
	}
	if format == "html" {
		kind := runs[0].Kind()
		for _, r := range runs[1:] {
			if r.Kind() != kind {
				return fmt.Errorf("cannot put an %s run (%s) and a %s run (%s) in one page", kind, runs[0].Label, r.Kind(), r.Label)
			}
		}
	}
	render := func(w io.Writer) error { return renderReport(w, format, runs) }
	if target == nil {
		return render(c.App.Writer)
	}
	return target.Write(c.Context, c.App.Writer, render)
}

// renderReport writes runs in format.
func renderReport(w io.Writer, format string, runs []*compare.Run) error {
	switch format {
	case "html":
		return htmlreport.Write(w, runs)
	case "json":
		return reportJSON(w, runs)
	}
	for _, r := range runs {
		if err := reportRun(w, format, r); err != nil {
			return err
		}
	}
	return nil
}

// reportJSON writes one result as it was saved, several as a JSON array.
func reportJSON(w io.Writer, runs []*compare.Run) error {
	vals := make([]any, len(runs))
	for i, r := range runs {
		if r.Block != nil {
			vals[i] = r.Block
		} else if r.Copy != nil {
			vals[i] = r.Copy
		} else {
			vals[i] = r.FS
		}
	}
	if len(vals) == 1 {
		return result.EncodeJSON(w, vals[0])
	}
	return result.EncodeJSON(w, vals)
}

// reportRun renders one run as the run printed it: bonnie++'s tables,
// advice and CSV line for fs runs (fsreport), the block reporter's text or
// CSV for block runs.
func reportRun(w io.Writer, format string, r *compare.Run) error {
	if r.Block != nil {
		return blockreport.Write(w, format, r.Block)
	}
	if r.Copy != nil {
		return copyreport.Write(w, format, r.Copy)
	}
	return fsreport.Write(w, w, r.FS, fsreport.Options{CSVOnly: format == "csv"})
}

// trailingReportFlags accepts --format and --output after the file names
// too ("clyde report r.json --format html"), which urfave/cli would take as
// more file names.
func trailingReportFlags(args []string, format, output string) ([]string, string, string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || (name != "format" && name != "output" && name != "o") {
			rest = append(rest, args[i])
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, "", "", result.Usagef(args[i], "needs a value")
			}
			i++
			val = args[i]
		}
		if name == "format" {
			format = val
		} else {
			output = val
		}
	}
	return rest, format, output, nil
}
