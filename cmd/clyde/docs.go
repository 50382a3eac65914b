package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/cdm"
	"github.com/clydebench/clyde/copybench"
	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/buildinfo"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/internal/input"
	"github.com/clydebench/clyde/internal/manpage"
	"github.com/clydebench/clyde/internal/outfile"
	"github.com/clydebench/clyde/internal/shellcomp"
	"github.com/clydebench/clyde/orion"
	"github.com/clydebench/clyde/result"
)

// This file is clyde's documentation as installed: `clyde --version`, the
// shell completions (`clyde completion bash|zsh|fish`) and the manual pages
// (`clyde man`, hidden: make install and make deb run it), all made from the
// command tree itself so that they list the flags clyde takes.

func init() {
	commandList = append(commandList, completionCommand(), manCommand())
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprint(c.App.Writer, buildinfo.Summary(c.App.Name)) }
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a completion script for bash, zsh or fish",
		ArgsUsage: strings.Join(shellcomp.Shells, "|"),
		Description: "Prints the script on stdout. To load it for this shell session:\n\n" +
			"  source <(clyde completion bash)\n" +
			"  source <(clyde completion zsh)\n" +
			"  clyde completion fish | source\n\n" +
			"make install and the Debian package install all three where the shells look for them.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return result.Usagef("completion", "want one shell: %s", strings.Join(shellcomp.Shells, ", "))
			}
			if !slices.Contains(shellcomp.Shells, c.Args().First()) {
				return result.Usagef("completion", "unknown shell %q; accepted: %s", c.Args().First(), strings.Join(shellcomp.Shells, ", "))
			}
			return shellcomp.Write(c.App.Writer, c.Args().First(), completionProgram(c.App))
		},
	}
}

func manCommand() *cli.Command {
	return &cli.Command{
		Name:   "man",
		Hidden: true,
		Usage:  "write the manual pages: clyde.1 and one clyde-COMMAND.1 per command",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Value: ".", Usage: "directory to write the pages into"},
			&cli.StringSliceFlag{Name: "readme", Usage: "README.md and docs/*.md, whose recipes become the EXAMPLES (and clyde-fs's differences from bonnie++); may be given more than once"},
		},
		Action: noArgs(func(c *cli.Context) error {
			var readme string
			for _, p := range c.StringSlice("readme") {
				b, err := input.ReadFile(c.Context, p, 0) // the one reader of named inputs
				if err != nil {
					return fmt.Errorf("man pages: %w", err)
				}
				readme += string(b) + "\n"
			}
			for _, p := range manPages(c.App, readme) {
				// Each page is an output file: the path rule, then an
				// atomic replace through its directory's descriptor.
				out, err := outfile.Check("--dir", filepath.Join(c.String("dir"), p.Name+"."+p.Section))
				if err != nil {
					return err
				}
				err = out.Write(c.Context, c.App.Writer, p.Write)
				out.Close()
				if err != nil {
					return fmt.Errorf("man pages: %w", err)
				}
			}
			return nil
		}),
	}
}

// visibleCommands are the commands a user is shown.
func visibleCommands(app *cli.App) []*cli.Command {
	var out []*cli.Command
	for _, c := range app.Commands {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *cli.Command) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// visibleFlags leaves out hidden flags and the help flag urfave/cli adds.
func visibleFlags(flags []cli.Flag) []cli.DocGenerationFlag {
	var out []cli.DocGenerationFlag
	for _, f := range flags {
		vf, ok := f.(cli.VisibleFlag)
		df, ok2 := f.(cli.DocGenerationFlag)
		if !ok || !ok2 || !vf.IsVisible() || f.Names()[0] == "help" || f.Names()[0] == "version" {
			continue
		}
		out = append(out, df)
	}
	return out
}

// placeholder splits urfave/cli's `NAME` mark out of a usage text, as its
// help does.
func placeholder(usage string) (name, text string) {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return "", usage
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return "", usage
	}
	name = usage[i+1 : i+1+j]
	return name, usage[:i] + name + usage[i+2+j:]
}

// dashedNames are a flag's names as typed, the one-letter ones (bonnie++'s)
// first.
func dashedNames(f cli.Flag) []string {
	var out []string
	names := slices.Clone(f.Names())
	slices.SortStableFunc(names, func(a, b string) int { return min(len(a), 2) - min(len(b), 2) })
	for _, n := range names {
		if len(n) == 1 {
			out = append(out, "-"+n)
		} else {
			out = append(out, "--"+n)
		}
	}
	return out
}

// Completion: what each flag's value is. The lists come from the tables the
// parsers check against.

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// flagWords are the flags whose value is one of a list, per command ("" for
// every command that has the flag).
func flagWords(cmd, flag string) []string {
	switch cmd + " " + flag {
	case "compare format":
		return compareFormats
	case "report format":
		return reportFormats
	case "copy method":
		return append(strs(copybench.Methods), "all")
	case "copy buffer":
		return strs([]copybench.Buffer{copybench.BufferRandom, copybench.BufferZero})
	case "orion run":
		return orion.Runs
	case "orion matrix":
		return orion.Matrices
	case "block test-data":
		return strs([]cdm.Data{cdm.Random, cdm.Zero, cdm.Both})
	case "block passes-kept":
		return strs([]cdm.Aggregate{cdm.Best, cdm.Average})
	}
	switch flag {
	case "rw":
		return strs(blockbench.RWModes)
	case "ioengine":
		return strs(blockbench.Engines)
	case "profile":
		return blockPresetNames
	case "cdm-preset":
		return strs(cdm.Presets)
	case "output-format":
		return blockreport.Formats
	}
	return nil
}

// pathFlags are the flags that name a file (or a device) or a directory.
var pathFlags = map[string]shellcomp.Kind{
	"filename": shellcomp.File, "json": shellcomp.File, "output": shellcomp.File, "db": shellcomp.File,
	"prom-textfile": shellcomp.File, "seed-file": shellcomp.File,
	"dir": shellcomp.Dir, "to": shellcomp.Dir, "output-dir": shellcomp.Dir,
}

// argKinds are the commands whose arguments are files (job files, results);
// a new command with ArgsUsage gets files too.
var argKinds = map[string]shellcomp.Kind{"block": shellcomp.File, "iometer": shellcomp.File, "compare": shellcomp.File, "report": shellcomp.File, "completion": shellcomp.List}

func completionFlag(cmd string, f cli.DocGenerationFlag) shellcomp.Flag {
	_, usage := placeholder(f.GetUsage())
	cf := shellcomp.Flag{Names: f.Names(), Summary: usage}
	switch {
	case !f.TakesValue():
		cf.Value = shellcomp.None
	case flagWords(cmd, f.Names()[0]) != nil:
		cf.Value, cf.Words = shellcomp.List, flagWords(cmd, f.Names()[0])
	case pathFlags[f.Names()[0]] != shellcomp.None:
		cf.Value = pathFlags[f.Names()[0]]
		if cmd == "history" && f.Names()[0] == "dir" {
			cf.Value = shellcomp.File // a directory or a device
		}
	default:
		cf.Value = shellcomp.Word
	}
	return cf
}

func completionProgram(app *cli.App) shellcomp.Program {
	p := shellcomp.Program{Name: app.Name}
	for _, f := range visibleFlags(app.Flags) {
		p.Flags = append(p.Flags, completionFlag("", f))
	}
	p.Flags = append(p.Flags, shellcomp.Flag{Names: []string{"help", "h"}, Summary: "show help"}, shellcomp.Flag{Names: []string{"version", "v"}, Summary: "print the version"})
	for _, c := range visibleCommands(app) {
		cc := shellcomp.Command{Name: c.Name, Summary: c.Usage, Args: argKinds[c.Name]}
		if _, known := argKinds[c.Name]; !known && c.ArgsUsage != "" {
			cc.Args = shellcomp.File
		}
		if c.Name == "completion" {
			cc.ArgWords = shellcomp.Shells
		}
		for _, f := range visibleFlags(c.Flags) {
			cc.Flags = append(cc.Flags, completionFlag(c.Name, f))
		}
		cc.Flags = append(cc.Flags, shellcomp.Flag{Names: []string{"help", "h"}, Summary: "show help"})
		p.Commands = append(p.Commands, cc)
	}
	return p
}

// Manual pages.

// exitStatus is the EXIT STATUS of every page, from the codes exitCode
// returns.
var exitStatus = []manpage.Item{
	{Tag: fmt.Sprint(exitOK), Text: "The run finished and its results were written."},
	{Tag: fmt.Sprint(exitFailed), Text: "The run failed, or a history that failed only after the run (the result is still printed and written)."},
	{Tag: fmt.Sprint(exitUsage), Text: "Usage error: a flag or argument was refused before anything was written (a bad value, an unsafe target, a history that is not clyde's)."},
	{Tag: fmt.Sprint(exitRegression), Text: "--check-regression found a rate that fell below the baseline of earlier comparable runs."},
	{Tag: fmt.Sprint(exitOverTime), Text: "Stopped by its time bound (--max-time, or under clyde fs --auto=BUDGET five times the budget): the run stopped as at SIGTERM, cleaned up, and kept what finished, marked partial in the history."},
	{Tag: fmt.Sprint(exitInterrupted), Text: "Interrupted by SIGINT, SIGTERM, SIGHUP or SIGQUIT: the run stopped, cleaned up and reported what finished."},
}

func filesSection() manpage.Section {
	xdg, _ := history.DefaultPath(func(k string) string {
		if k == "XDG_DATA_HOME" {
			return "$XDG_DATA_HOME"
		}
		return ""
	})
	return manpage.Section{Title: "Files", Items: []manpage.Item{
		{Tag: xdg, Text: "The history database (SQLite) where each run is saved, when XDG_DATA_HOME is set; --db PATH or CLYDE_DB moves it."},
		{Tag: "~/.local/share/clyde/history.db", Text: "The history database when XDG_DATA_HOME is not set (under cron, HOME may differ from a login shell's: give --db)."},
	}}
}

func environmentSection() manpage.Section {
	return manpage.Section{Title: "Environment", Items: []manpage.Item{
		{Tag: "CLYDE_DB", Text: "The history database, as --db."},
		{Tag: "XDG_DATA_HOME", Text: "Where the history database lives by default (see FILES)."},
		{Tag: "CLYDE_PROGRESS", Text: "1 prints progress on stderr even when it is not a terminal."},
	}}
}

func manOption(f cli.DocGenerationFlag) manpage.Option {
	arg, usage := placeholder(f.GetUsage())
	o := manpage.Option{Names: dashedNames(f), Usage: usage, Env: f.GetEnvVars()}
	if f.TakesValue() {
		if arg == "" {
			arg = strings.ToUpper(f.Names()[0])
		}
		o.Arg = arg
		if d := f.GetDefaultText(); d != "" && d != "0" && d != `""` {
			o.Default = d
		}
	} else if d := f.GetDefaultText(); d == "true" {
		o.Default = "true; --" + f.Names()[0] + "=false turns it off"
	}
	return o
}

// synopsis splits a command's UsageText into its command lines (a line
// indented under another continues it) and the text after the first blank
// line, which opens the description.
func synopsis(c *cli.Command) (lines []string, rest string) {
	text := c.UsageText
	if text == "" {
		text = "clyde " + c.Name + " [options]"
		if c.ArgsUsage != "" {
			text += " " + c.ArgsUsage
		}
	}
	head, rest, _ := strings.Cut(text, "\n\n")
	for _, l := range strings.Split(head, "\n") {
		if (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) && len(lines) > 0 {
			lines[len(lines)-1] += " " + strings.TrimSpace(l)
			continue
		}
		lines = append(lines, strings.TrimSpace(l))
	}
	return lines, rest
}

// manPages are clyde(1) and clyde-COMMAND(1) for every visible command.
// readme, when given, is the README whose recipes become the EXAMPLES.
func manPages(app *cli.App, readme string) []manpage.Page {
	src := "clyde " + buildinfo.Version()
	cmds := visibleCommands(app)
	seeAlso := []string{"bonnie++(8)", "fio(1)"}
	var pages []manpage.Page
	var sub []string
	main := manpage.Page{
		Name: "clyde", Section: "1", Source: src, Manual: "clyde manual", Summary: app.Usage,
		Synopsis:    []string{"clyde COMMAND [options] [arguments]", "clyde --version"},
		Description: app.Description,
	}
	var cmdItems []manpage.Item
	var mainExamples []manpage.Example
	for _, c := range cmds {
		sub = append(sub, "clyde-"+c.Name+"(1)")
		cmdItems = append(cmdItems, manpage.Item{Tag: "clyde " + c.Name, Text: c.Usage + "; see clyde-" + c.Name + "(1)."})
		if ex := manpage.ExamplesFrom(readme, "clyde", c.Name); len(ex) > 0 {
			mainExamples = append(mainExamples, ex[0])
		}
	}
	for _, f := range visibleFlags(app.Flags) {
		main.Options = append(main.Options, manOption(f))
	}
	main.Options = append(main.Options,
		manpage.Option{Names: []string{"--help", "-h"}, Usage: "show the commands (clyde COMMAND --help: a command's flags)"},
		manpage.Option{Names: []string{"--version", "-v"}, Usage: "print the version, the commit and the Go version clyde was built from"})
	main.Sections = append(main.Sections, manpage.Section{Title: "Commands", Items: cmdItems})
	if len(mainExamples) > 0 {
		main.Sections = append(main.Sections, manpage.Section{Title: "Examples", Examples: mainExamples})
	}
	main.Sections = append(main.Sections, manpage.Section{Title: "Exit status", Items: exitStatus}, environmentSection(), filesSection())
	main.SeeAlso = append(append([]string(nil), sub...), seeAlso...)
	pages = append(pages, main)

	for _, c := range cmds {
		lines, rest := synopsis(c)
		desc := c.Description
		if rest != "" {
			desc = strings.TrimSpace(rest + "\n\n" + desc)
		}
		p := manpage.Page{
			Name: "clyde-" + c.Name, Section: "1", Source: src, Manual: "clyde manual", Summary: c.Usage,
			Synopsis: lines, Description: desc,
		}
		for _, f := range visibleFlags(c.Flags) {
			p.Options = append(p.Options, manOption(f))
		}
		p.Options = append(p.Options, manpage.Option{Names: []string{"--help", "-h"}, Usage: "show the flags"})
		if c.Name == "fs" {
			if d := manpage.BulletsUnder(readme, "What clyde fs does differently from bonnie++ 2.00a"); len(d) > 0 {
				p.Sections = append(p.Sections, manpage.Section{Title: "Differences from bonnie++",
					Text:  "clyde fs takes bonnie++ 2.00a's flags with the same letters and meanings (the one-letter names above). What it does differently:",
					Items: d})
			}
		}
		if ex := manpage.ExamplesFrom(readme, "clyde", c.Name); len(ex) > 0 {
			p.Sections = append(p.Sections, manpage.Section{Title: "Examples", Examples: ex})
		}
		p.Sections = append(p.Sections, manpage.Section{Title: "Exit status", Items: exitStatus})
		if slices.ContainsFunc(c.Flags, func(f cli.Flag) bool { return f.Names()[0] == "db" }) {
			p.Sections = append(p.Sections, environmentSection(), filesSection())
		}
		var also []string
		for _, s := range append([]string{"clyde(1)"}, sub...) {
			if s != "clyde-"+c.Name+"(1)" {
				also = append(also, s)
			}
		}
		p.SeeAlso = append(also, seeAlso...)
		pages = append(pages, p)
	}
	return pages
}
