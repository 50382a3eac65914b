package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/internal/atexit"
	"github.com/clydebench/clyde/internal/buildinfo"
	"github.com/clydebench/clyde/internal/keep"
	"github.com/clydebench/clyde/internal/launch"
	"github.com/clydebench/clyde/internal/stopsig"
	"github.com/clydebench/clyde/result"
)

// Exit codes, decided in one place (exitCode) from the error.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitRegression  = 3
	exitOverTime    = 124
	exitInterrupted = 130
)

// exitCodeList is the list --help, every command's help and the README
// give.
const exitCodeList = "Exit codes: 0 ok, 1 run failed, 2 usage error, 3 regression found (--check-regression), 124 stopped by its time bound (--max-time), 130 interrupted."

// version is what --version prints (internal/buildinfo).
var version = buildinfo.Version()

// errInterrupted marks a run stopped by SIGINT, SIGTERM or SIGHUP.
var errInterrupted = errors.New("interrupted")

// asUsageError makes urfave/cli's flag-parsing errors exit with code 2.
func asUsageError(_ *cli.Context, err error, _ bool) error {
	return &result.UsageError{Msg: err.Error()}
}

func newApp(stdout, stderr io.Writer) *cli.App {
	cmds := commands()
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = asUsageError
		}
	}
	return &cli.App{
		Name:    "clyde",
		Usage:   "storage benchmark: the bonnie++ suite and a raw block engine",
		Version: version,
		Description: exitCodeList + "\n" +
			"(every rank of a many-client job that did not finish exits alike, 1 or 130, and a rank under mpiexec\n" +
			"exits 1 for a usage error: mpiexec ORs the ranks' codes; see docs/many-clients.md).\n" +
			"Run 'clyde COMMAND --help' for a command's flags.",
		Writer:    stdout,
		ErrWriter: stderr,
		Commands:  cmds,
		// Errors are printed once, by run, as one line.
		ExitErrHandler:       func(*cli.Context, error) {},
		HideHelpCommand:      true,
		EnableBashCompletion: false,
		OnUsageError:         asUsageError,
	}
}

// commandList is filled by each subcommand's file in its init function, so
// adding a command touches only its own file.
var commandList []*cli.Command

func commands() []*cli.Command { return commandList }

// run is the whole program; it returns the exit code.
func run(args []string) int {
	ctx, stop := signalContext()
	defer stop()
	return runContext(ctx, args, os.Stdout, os.Stderr)
}

func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	app.Metadata = map[string]any{typedKey: args}
	err := checkCommand(app, args)
	if err == nil {
		args, err = prepareBlockArgs(app, args)
	}
	if err == nil {
		err = app.RunContext(ctx, rewriteIometerArgs(rewriteBonnieArgs(args)))
	}
	err = stopInWords(app, ctx, err)
	code := exitCode(err)
	if code == exitUsage && launch.UnderHydra(os.Getenv) {
		// One of several ranks under mpiexec, which ORs the ranks'
		// codes: this 2 beside another rank's 1 would read as 3.
		code = exitFailed
	}
	if err != nil && !errors.Is(err, errSilent) {
		fmt.Fprintf(stderr, "clyde: %v\n", err)
	}
	return code
}

// typedKey holds the command line as typed, before any rewriting, in the
// app's Metadata.
const typedKey = "typed"

// typedArgs is the command line as typed (os.Args for the binary).
func typedArgs(c *cli.Context) []string {
	if a, ok := c.App.Metadata[typedKey].([]string); ok {
		return a
	}
	return os.Args
}

// errSilent wraps errors whose message was already printed.
var errSilent = errors.New("")

// exitCode maps an error to the documented exit code.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errOverTime):
		return exitOverTime
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return exitInterrupted
	case result.IsUsage(err):
		return exitUsage
	case errors.Is(err, keep.ErrRegression):
		return exitRegression
	default:
		return exitFailed
	}
}

// signalContext is cancelled by the first of stopsig.Signals: SIGINT, SIGTERM
// or SIGHUP (the terminal closed: the run cleans up as for ^C rather than
// die and leave its files), and on Windows ^C, ^Break and the console
// closing. The run then stops, cleans up and reports what finished.
//
// One stop, however many signals bring it: GNU timeout sends SIGTERM to
// clyde and then to its process group, a shell's kill or a service manager
// may send SIGTERM and SIGHUP together, so any number of signals within
// secondSignalAfter of the first, and any signal but SIGINT later, are the
// same stop. Only a second SIGINT a person types later than that ends the
// process at once (exit 130), and even then it removes what it can: the
// removals registered with internal/atexit (test files, markers, private
// directories) run first.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 8)
	stopsig.Notify(ch)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			cancel(signalStop{sig})
		case <-done:
			return
		}
		first := time.Now()
		for {
			select {
			case sig := <-ch:
				if !isSecondStop(sig, time.Since(first)) {
					continue
				}
				fmt.Fprintln(os.Stderr, "clyde: second interrupt, aborting: removing what the run created, then exiting without its report")
				atexit.RunAll(abortWait)
				os.Exit(exitInterrupted)
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// secondSignalAfter is how long after the first signal another one is
// still the same stop: signals sent together (timeout's two SIGTERMs) arrive
// within microseconds, a person's second ^C comes later than this.
const secondSignalAfter = time.Second

// abortWait bounds how long an abort waits for a removal under way.
const abortWait = 2 * time.Second

// isSecondStop reports whether sig, arriving after the first stop signal,
// asks to abort: only a SIGINT, and only later than secondSignalAfter.
func isSecondStop(sig os.Signal, since time.Duration) bool {
	return sig == os.Interrupt && since > secondSignalAfter
}

// noArgs wraps the Action of a command that takes flags only: a stray word
// (clyde fs -q mnt, meaning -d mnt) is refused rather than ignored, which ran
// the default-size test in the current directory.
func noArgs(action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		for _, a := range c.Args().Slice() {
			if err := pastedDash(a); err != nil {
				return err
			}
		}
		if c.NArg() > 0 {
			return result.Usagef(c.Args().First(), "unexpected argument; clyde %s takes flags only (did you mean -d %s?)", c.Command.Name, c.Args().First())
		}
		return action(c)
	}
}

// dashes are the characters a word processor or a web page puts where a
// command had a hyphen: a flag pasted from a write-up (ORION's "–write 0"
// on a blog) starts with one and is taken as a word.
var dashes = map[rune]string{
	'\u2010': "a Unicode hyphen (U+2010)", '\u2011': "a non-breaking hyphen (U+2011)", '\u2012': "a figure dash (U+2012)",
	'\u2013': "an en dash (U+2013)", '\u2014': "an em dash (U+2014)", '\u2015': "a horizontal bar (U+2015)",
	'\u2212': "a minus sign (U+2212)", '\ufe63': "a small hyphen-minus (U+FE63)", '\uff0d': "a fullwidth hyphen-minus (U+FF0D)",
}

// pastedDash refuses a word that starts with one of those dashes, naming it
// and the flag that was meant.
func pastedDash(word string) error {
	r, size := utf8.DecodeRuneInString(word)
	what, ok := dashes[r]
	if !ok {
		return nil
	}
	rest := strings.TrimLeftFunc(word[size:], func(r rune) bool { _, d := dashes[r]; return d || r == '-' })
	return result.Usagef(word, "starts with %s, not a hyphen (pasted from a document?); type -%s", what, rest)
}

// checkCommand refuses an unknown subcommand as a usage error; urfave/cli
// would print a help hint and exit 1.
func checkCommand(app *cli.App, args []string) error {
	if len(args) < 2 || strings.HasPrefix(args[1], "-") || args[1] == "help" {
		return nil
	}
	var names []string
	for _, c := range app.Commands {
		if c.HasName(args[1]) {
			return nil
		}
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return &result.UsageError{Msg: fmt.Sprintf("unknown command %q; commands: %s", args[1], strings.Join(names, ", "))}
}
