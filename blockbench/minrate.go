package blockbench

import (
	"context"
	"fmt"
	"time"

	"github.com/clydebench/clyde/result"
)

// fio's startdelay and its rate_min and rate_iops_min: when a worker
// starts, and when it fails for being too slow.

// minRateSettle is fio's settling time before the first minimum-rate
// check (backend.c __check_min_rate: "allow a 2 second settle period").
const minRateSettle = int64(2 * time.Second)

// errEIO is the errno fio's job "error" holds for a minimum rate not met.
const errEIO = 5

// defaultRateCycle is fio's rate_cycle default, 1000 ms.
const defaultRateCycle = time.Second

// validateStart holds the rules of StartDelay and the minimum rates.
func (w *Workload) validateStart() error {
	switch {
	case w.StartDelay < 0 || w.StartDelay > MaxRuntime:
		return result.Usagef("--startdelay", "workload %s: %v is outside 0..%v", w.Name, w.StartDelay, MaxRuntime)
	case w.RateMin[0] < 0 || w.RateMin[1] < 0 || w.RateIOPSMin[0] < 0 || w.RateIOPSMin[1] < 0 || w.RateCycle < 0:
		return result.Usagef("--rate_min", "workload %s: a negative minimum rate or rate cycle", w.Name)
	}
	return nil
}

// MinRateError is a worker that fell below the workload's minimum rate,
// fio's "rate_min=...B/s not met": the job ends there, with fio's error
// EIO.
type MinRateError struct {
	Dir string
	// IOPS says the minimum is rate_iops_min (I/Os per second), not
	// rate_min (bytes per second).
	IOPS      bool
	Want, Got int64
}

func (e *MinRateError) Error() string {
	if e.IOPS {
		return fmt.Sprintf("%s: rate_iops_min=%d not met, got %d IOPS", e.Dir, e.Want, e.Got)
	}
	return fmt.Sprintf("%s: rate_min=%dB/s not met, got %dB/s", e.Dir, e.Want, e.Got)
}

// minRate is a worker's side of the minimum rates: the counters at the
// last check, per direction, as fio's last_rate_check_bytes and _blocks.
type minRate struct {
	cycle  int64
	lastAt [2]int64
	bytes  [2]int64
	ios    [2]int64
	seen   [2]bool
}

// startMinRate readies the checks when the workload has a minimum rate.
func (w *worker) startMinRate() {
	s := w.spec
	if s.RateMin == [2]int64{} && s.RateIOPSMin == [2]int64{} {
		return
	}
	c := s.RateCycle
	if c == 0 {
		c = defaultRateCycle
	}
	w.minRate = &minRate{cycle: int64(c)}
}

// checkMinRate is fio's check_min_rate at now, from the worker's tick
// (never per I/O): for each direction that moved data, once the settling
// time is over and a rate cycle has passed since the last check, the rate
// over it must reach the minimum; false fails the worker with a
// MinRateError. The first check after the settling time only records, as
// fio's.
func (w *worker) checkMinRate(now int64) bool {
	m := w.minRate
	if now-w.startNs < minRateSettle {
		return true
	}
	for d := range 2 {
		bmin, imin := w.spec.RateMin[d], w.spec.RateIOPSMin[d]
		if (bmin == 0 && imin == 0) || w.bytes[d] == 0 {
			continue
		}
		if m.seen[d] {
			spent := (now - m.lastAt[d]) / int64(time.Millisecond)
			if spent*int64(time.Millisecond) < m.cycle || spent == 0 {
				continue
			}
			if bmin > 0 {
				if got := (w.bytes[d] - m.bytes[d]) * 1000 / spent; got < bmin {
					w.fail(&MinRateError{Dir: dirNames[d], Want: bmin, Got: got})
					return false
				}
			} else if got := (w.ios[d] - m.ios[d]) * 1000 / spent; got < imin {
				w.fail(&MinRateError{Dir: dirNames[d], IOPS: true, Want: imin, Got: got})
				return false
			}
		}
		m.seen[d], m.lastAt[d], m.bytes[d], m.ios[d] = true, now, w.bytes[d], w.ios[d]
	}
	return true
}

// waitStart holds a worker back until its workload's start (fio's
// startdelay) and moves its clock there: its ramp, runtime and
// measurement count from then. start is when its group started; false
// says the run ended first.
func (w *worker) waitStart(ctx context.Context, start time.Time) bool {
	at := w.spec.startAt
	if at.IsZero() {
		return true
	}
	d := at.Sub(start)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	check := time.NewTicker(time.Duration(checkInterval))
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			w.stoppedEarly = true
			return false
		case <-t.C:
			w.delayStart(int64(d))
			return true
		case <-check.C:
			if w.stopped() {
				w.stoppedEarly = true
				return false
			}
		}
	}
}

// delayStart moves the worker's start to at ns after its group's start
// (again, after a startdelay, for wait_for).
func (w *worker) delayStart(at int64) {
	by := at - w.shifted
	w.shifted = at
	w.rampEnd += by
	if w.deadline > 0 {
		w.deadline += by
	}
	if w.measuring {
		w.startMeasuring(at)
		return
	}
	w.nextEvent = min(w.rampEnd, at+checkInterval)
}
