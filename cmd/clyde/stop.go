package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/internal/lanes"
	"github.com/clydebench/clyde/result"
)

// What can stop a run before it finishes: a signal (signalContext) or the
// run's own time bound (--max-time, and --auto's default). Either cancels
// the run's context with one of these causes and nothing else: the engines
// see the same cancellation, stop, clean up and keep what finished (the one
// stop); only the words of the one error line and the exit code differ.

// signalStop is the cause of a stop by a signal.
type signalStop struct{ sig os.Signal }

func (s signalStop) Error() string { return "interrupted by " + signalName(s.sig) }

// Is makes a signal's stop errInterrupted (exit 130) and a cancellation,
// which is what the engines and the coordinator (a rank interrupted, not
// failed) look for.
func (s signalStop) Is(target error) bool {
	return target == errInterrupted || target == context.Canceled
}

// signalName is the signal as a person names it (SIGTERM), not Go's word
// for it ("terminated").
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return sig.String()
}

// errOverTime marks a run its own time bound stopped (exit 124, the code
// GNU timeout gives a command it had to stop).
var errOverTime = errors.New("stopped by its time bound")

// overTime is the cause of a stop by the time bound: how long, and where
// the bound came from.
type overTime struct {
	bound time.Duration
	from  string // "--max-time 10m", "--max-time's default under --auto=2m0s: 5 x the budget"
}

func (o overTime) Error() string {
	return fmt.Sprintf("stopped by its time bound: %s (%s)", roundDuration(o.bound), o.from)
}

func (o overTime) Is(target error) bool { return target == errOverTime }

// autoBoundFactor is --max-time's default under --auto=BUDGET: this many
// times the budget. --auto sizes the run to the budget (its estimate is
// within it unless the line it prints says otherwise), so a run still
// going at five times it is stuck on storage far slower than it measured:
// cron hears of it within minutes, not hours.
const autoBoundFactor = 5

// maxTimeLimit is the longest --max-time, as every run time is bounded
// (internal/limits).
const maxTimeLimit = 10000 * time.Hour

// maxTimeFlag is --max-time, which every command that runs a benchmark
// takes.
func maxTimeFlag() cli.Flag {
	return &cli.StringFlag{Name: "max-time", Usage: "stop the run after `DURATION` of wall time (such as 30m) as a SIGTERM would: it cleans up, keeps what finished (marked partial in the history, never in a baseline) and exits 124; under clyde fs --auto=BUDGET the default is 5 x BUDGET"}
}

// boundRun applies the run's time bound to c.Context, from which every
// later step of the command takes its context: --max-time when given,
// else def (0: no bound) with why saying where that default comes from.
// The returned func releases the timer; the command defers it.
func boundRun(c *cli.Context, def time.Duration, why string) (func(), error) {
	bound, from := def, why
	if s := c.String("max-time"); s != "" || c.IsSet("max-time") {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 || d > maxTimeLimit {
			return nil, result.Usagef("--max-time", "want a wall time such as 30m or 2h (at most %s), got %q", maxTimeLimit, s)
		}
		bound, from = d, "--max-time "+s
	}
	if bound <= 0 {
		return func() {}, nil
	}
	ctx, cancel := context.WithCancelCause(c.Context)
	timer := time.AfterFunc(bound, func() { cancel(overTime{bound: bound, from: from}) })
	c.Context = boundContext{Context: ctx, at: time.Now().Add(bound)}
	c.App.Metadata[boundKey] = c.Context
	return func() {
		timer.Stop()
		cancel(nil)
	}, nil
}

// boundContext is the run's context under a time bound. The bound cancels
// it as a signal cancels its parent (Err is context.Canceled, whatever
// stopped it; context.Cause says which), not as a deadline would
// (context.DeadlineExceeded, which the engines would take for a failure of
// their own): the one stop. It still tells its deadline, so a phase falling
// behind can say when the run will be stopped.
type boundContext struct {
	context.Context
	at time.Time
}

func (b boundContext) Deadline() (time.Time, bool) {
	if at, ok := b.Context.Deadline(); ok && at.Before(b.at) {
		return at, true
	}
	return b.at, true
}

// boundKey holds the run's bounded context (boundRun) in the app's
// Metadata, for stopInWords.
const boundKey = "bound"

// stopInWords gives an error a stop caused the stop's words when the step
// that failed returned only Go's (context.Canceled, from a history query
// or a read the stop cut short): what stopped the run, during what
// (lanes.Interrupted), so that the line says it and the exit code is the
// stop's (124 for the time bound, 130 for a signal). A many-client job
// that did not finish already says the job's end in its own words, and its
// code is the job's verdict (abortedJob): it is left as it is.
func stopInWords(app *cli.App, ctx context.Context, err error) error {
	if b, ok := app.Metadata[boundKey].(context.Context); ok {
		ctx = b
	}
	if err == nil || ctx.Err() == nil || !errors.Is(err, context.Canceled) || errors.Is(err, context.Cause(ctx)) || jobAborted(err) {
		return err
	}
	return lanes.Interrupted(ctx, err)
}

func roundDuration(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
