// Package lanes runs the workers of one measurement, for every engine: each
// lane prepares on its own goroutine (and, if it locks one, its own thread),
// all of them start together off one closed channel, run until their work is
// done or the context ends, and are timed as one measurement. It owns what
// every measurement needs the same way: a Go processor per blocking lane
// (internal/procs), the wall and CPU clock, merging the lanes' latency
// histograms, and picking the first real error over the cancellations it
// caused in the other lanes.
package lanes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/procs"
)

// Lane is one worker of a measurement.
type Lane struct {
	// Prepare runs on the lane's goroutine before the common start, untimed
	// (open a file, lock the thread, set up a ring). Work runs on the same
	// goroutine, so what Prepare bound to the thread holds for Work. nil
	// does nothing.
	Prepare func() error
	// Work is the timed part. start is the instant every lane was released;
	// lanes measure their own times from it. It returns when the lane's work
	// is done, ctx ends, or it fails.
	Work func(ctx context.Context, start time.Time) error
	// Lat are the lane's latency recorders; Outcome.Lat merges them by index
	// (fs: one per lane; block: lat, clat and slat per direction), apart
	// for each Set: the lanes of one workload of several running at once.
	Lat []*latency.Recorder
	Set int
}

// Options shape a measurement.
type Options struct {
	// Ramp is the unmeasured time at the start: the CPU clock starts once
	// it has passed (the lanes skip their own ramp by the start time).
	Ramp time.Duration
	// Started is called once every lane is prepared, just before the start
	// (a progress line).
	Started func()
	// Ready, when set, is called once every lane is prepared, before
	// Started: it may wait (a barrier across processes) and an error
	// releases no lane (each lane's Work never runs).
	Ready func() error
}

// Outcome is what a measurement took.
type Outcome struct {
	// Start is when the lanes were released; End when the last one
	// returned.
	Start, End time.Time
	// Sample is the wall time from the end of the ramp to End, and the
	// process's CPU time over it.
	Sample cpuclock.Sample
	// Errs holds each lane's error (nil for a lane that finished); Err is
	// the first real failure, or a cancellation when that is all there was.
	Errs []error
	Err  error
	// Lat are the lanes' recorders merged by index, per set: Lat[set][i].
	Lat [][]*latency.Recorder
}

// PrepareError is a lane that failed before the start; no lane ran.
type PrepareError struct {
	Lane int
	Err  error
}

func (e *PrepareError) Error() string { return fmt.Sprintf("prepare: %v", e.Err) }
func (e *PrepareError) Unwrap() error { return e.Err }

// Run runs the lanes as one measurement. A lane that fails cancels the
// others, so a measurement with a broken lane ends at once. When a Prepare
// fails, no lane's Work runs and the error is a *PrepareError.
func Run(ctx context.Context, lanes []Lane, o Options) (Outcome, error) {
	// Each lane blocks in its system calls; each gets a processor of its
	// own (see internal/procs).
	defer procs.Reserve(len(lanes))()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start, abort := make(chan struct{}), make(chan struct{})
	var began time.Time
	ends := make([]time.Time, len(lanes))
	errs := make([]error, len(lanes))
	prepErrs := make([]error, len(lanes))
	var ready, done sync.WaitGroup
	ready.Add(len(lanes))
	for i, ln := range lanes {
		done.Go(func() {
			if ln.Prepare != nil {
				prepErrs[i] = ln.Prepare()
			}
			ready.Done()
			select {
			case <-start:
			case <-abort:
				return
			}
			if prepErrs[i] != nil {
				return
			}
			errs[i] = ln.Work(lctx, began)
			ends[i] = time.Now()
			if errs[i] != nil {
				cancel()
			}
		})
	}
	ready.Wait()
	for i, err := range prepErrs {
		if err != nil {
			close(abort)
			done.Wait()
			return Outcome{}, &PrepareError{Lane: i, Err: FirstError(prepErrs)}
		}
	}
	if o.Ready != nil {
		if err := o.Ready(); err != nil {
			close(abort)
			done.Wait()
			return Outcome{}, err
		}
	}
	if o.Started != nil {
		o.Started()
	}
	// Without a ramp the clocks are read just before the release, so the
	// first operations count; with one, once it has passed.
	sw := cpuclock.Start()
	began = sw.Began()
	close(start)
	measureFrom := began
	if o.Ramp > 0 {
		measureFrom = began.Add(o.Ramp)
		timer := time.NewTimer(o.Ramp)
		select {
		case <-timer.C:
		case <-lctx.Done():
			timer.Stop()
		}
		sw = cpuclock.StartAt(measureFrom)
	}
	done.Wait()
	out := Outcome{Start: began, End: measureFrom, Errs: errs, Err: FirstError(errs)}
	for _, e := range ends {
		if e.After(out.End) {
			out.End = e
		}
	}
	out.Sample = sw.StopAt(out.End)
	for _, ln := range lanes {
		for len(out.Lat) <= ln.Set {
			out.Lat = append(out.Lat, nil)
		}
		for k, r := range ln.Lat {
			for len(out.Lat[ln.Set]) <= k {
				out.Lat[ln.Set] = append(out.Lat[ln.Set], latency.New())
			}
			out.Lat[ln.Set][k].Merge(r)
		}
	}
	return out, nil
}

// FirstError prefers a real failure over the cancellations it caused in the
// other lanes.
func FirstError(errs []error) error {
	var cancelled error
	for _, e := range errs {
		switch {
		case e == nil:
		case errors.Is(e, context.Canceled):
			if cancelled == nil {
				cancelled = e
			}
		default:
			return e
		}
	}
	return cancelled
}

// Interrupted is the error of a run that ctx ended while err was what
// stopped it: one line saying in words what stopped it (the cause's own,
// such as "interrupted by SIGTERM") and where (err's words without Go's
// "context canceled" at their end, such as "per-char write"), never the
// runtime's text. It matches the cause, err and context.Canceled whatever
// the cause was.
func Interrupted(ctx context.Context, err error) error {
	return &StopError{Cause: context.Cause(ctx), Where: where(err, context.Cause(ctx)), Err: err}
}

// StopError is a run a stop ended (Interrupted).
type StopError struct {
	// Cause is what stopped it (context.Cause), Where the step it was in
	// ("" when err says nothing more), Err the error the step returned.
	Cause error
	Where string
	Err   error
}

func (e *StopError) Error() string {
	if e.Where == "" {
		return e.Cause.Error()
	}
	return e.Cause.Error() + " during " + e.Where
}

func (e *StopError) Unwrap() []error { return []error{e.Cause, e.Err, context.Canceled} }

// where is err's text without the cancellation's words wherever they end
// a step: the steps that wrapped it ("per-char write: context canceled" is
// "per-char write"), with what later steps added after it kept ("fill f:
// context canceled; the partial result is kept as #8" is "fill f; the
// partial result is kept as #8"), "" when err is only the cancellation.
func where(err, cause error) string {
	s := err.Error()
	for _, stop := range []error{context.Canceled, cause} {
		if stop == nil {
			continue
		}
		w := stop.Error()
		if s == w {
			return ""
		}
		s = strings.TrimSuffix(s, ": "+w)
		for _, after := range []string{"; ", "\n"} {
			s = strings.ReplaceAll(s, ": "+w+after, after)
		}
	}
	return s
}

// Stopped reports whether ctx is done, without blocking (a non-blocking
// channel receive, no lock): the hot loops call it every few hundred
// operations.
func Stopped(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}
