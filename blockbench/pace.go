package blockbench

import "time"

// pace makes the worker wait after a completion in dir at now, as fio's
// thinktime and rate do: thinktime after every thinktime_blocks I/Os, and
// until the direction's bytes and I/Os so far are due at its rate, counted
// from the start of the measurement. The wait ends at the deadline and
// looks at the context, the group's stop and exitall (w.stopped) every
// checkInterval, so ^C still stops a run within a tenth of a second, and
// a stopped worker drains its queue without a wait per I/O.
func (w *worker) pace(dir int, now int64) {
	var wait int64
	if w.spec.ThinkTime > 0 {
		if w.sinceThink++; w.sinceThink >= max(1, w.spec.ThinkTimeBlocks) {
			w.sinceThink = 0
			wait = int64(w.spec.ThinkTime)
		}
	}
	if w.loop != nil && w.loop.think != nil {
		wait = max(wait, int64(w.loop.think.Think()))
	}
	if r := w.spec.Rate[dir]; r > 0 {
		due := w.startNs + int64(float64(w.bytes[dir])*1e9/float64(r))
		wait = max(wait, due-now)
	}
	if r := w.spec.RateIOPS[dir]; r > 0 {
		due := w.startNs + int64(float64(w.ios[dir])*1e9/float64(r))
		wait = max(wait, due-now)
	}
	if w.deadline > 0 {
		wait = min(wait, w.deadline-now)
	}
	for wait > 0 && !w.stopped() {
		step := min(wait, checkInterval)
		time.Sleep(time.Duration(step))
		wait -= step
	}
	if w.stopped() {
		w.nextEvent = 0 // the loop's next look is a tick, which stops it
	}
}
