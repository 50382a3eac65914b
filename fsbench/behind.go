package fsbench

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/result"
)

// A phase is far behind its estimate once it has run BehindFactor times as
// long as the estimate, or its rate so far says it will, and at least
// BehindAfter: a phase sized for a second that takes four on a busy machine
// is not news, one that would take an hour is. The estimate is the one
// --auto sized the phase by: its calibrated (or reused) rate for the
// phase's amount of work, or, while --auto calibrates, the quarter of the
// budget the whole calibration may take.
const (
	BehindFactor = 4
	BehindAfter  = 10 * time.Second
)

// behindEvery is how often a running phase is compared with its estimate;
// behindAfter is BehindAfter, shorter in tests.
var (
	behindEvery = time.Second
	behindAfter = BehindAfter
)

// Behind is where a run says, once, that a phase fell far behind its
// estimate: the one line a cron job's mail carries even with --silent
// (clyde fs passes stderr), while the run still goes on, so that a sync
// mount, a dying disk or a throttled CPU is named within minutes rather
// than when a run sized for two minutes ends hours later. One Behind is
// shared by --auto's calibration runs and the run itself: the first phase
// to fall behind says so, the others keep quiet.
type Behind struct {
	W    io.Writer
	said atomic.Bool
}

// estimate is how long phase t should take in this run, and what that
// comes from, for the behind watch; 0 when nothing says (no --auto).
func (r *runner) estimate(t result.FSTest) (time.Duration, string) {
	o := &r.opts
	if o.calibrating > 0 {
		return o.calibrating, fmt.Sprintf("the %s the whole of --auto's calibration may take", spell(o.calibrating))
	}
	if o.Auto == nil {
		return 0, ""
	}
	rate := o.Auto.CalibrationRates[t.Name()]
	d := testTime(o, t, rate)
	if d <= 0 {
		return 0, ""
	}
	whose := "its"
	if o.Auto.ReusedFrom != "" {
		whose = o.Auto.ReusedFrom + "'s" // the run whose sizes, and rates, were taken
	}
	return d, fmt.Sprintf("its estimate of %s (at %s calibrated rate, %s)", spell(d), whose, rateText(t, rate))
}

// watchBehind compares phase t, while it runs, with its estimate every
// behindEvery, and the first time it is far behind says so on r's Behind
// and in the test's notes. The returned func stops the watch; it is
// called once the phase's lanes are done.
func (r *runner) watchBehind(ctx context.Context, t result.FSTest, tr *result.FSTestResult, total int64) func() {
	b := r.opts.Behind
	est, from := r.estimate(t)
	if b == nil || b.W == nil || est <= 0 || b.said.Load() {
		return func() {}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var note string
	began := time.Now()
	wg.Go(func() {
		tick := time.NewTicker(behindEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				left := time.Duration(-1)
				if at, ok := ctx.Deadline(); ok {
					left = max(time.Until(at), 0)
				}
				line, ok := behindLine(t, now.Sub(began), est, from, r.doneOps(), total, r.opts.ChunkBytes, left)
				if ok && b.said.CompareAndSwap(false, true) {
					fmt.Fprintln(b.W, "clyde: warning: "+line)
					note = line
					return
				}
			}
		}
	})
	return func() {
		close(stop)
		wg.Wait()
		if note != "" {
			tr.Notes = append(tr.Notes, note)
		}
	}
}

// behindLine is the far-behind line of phase t after elapsed, when it is
// far behind est (ok): how long it has run, how long it will take at its
// rate so far (done of total operations), how many times est that is, and
// what that suggests; and, when left is not negative, that the run's time
// bound (its context's deadline) stops it that much later.
func behindLine(t result.FSTest, elapsed, est time.Duration, from string, done, total int64, chunk int, left time.Duration) (string, bool) {
	whole := elapsed
	if done > 0 && total > done {
		whole = max(whole, time.Duration(float64(elapsed)*float64(total)/float64(done)))
	}
	if elapsed < behindAfter || whole < BehindFactor*est {
		return "", false
	}
	line := fmt.Sprintf("%s is far behind: it has run %s", t.Phase(), spell(elapsed))
	if whole > elapsed {
		line += fmt.Sprintf(" and at its rate so far (%s) needs about %s in all", rateText(t, opsRate(t, done, elapsed, chunk)), spell(whole))
	}
	line += fmt.Sprintf(", %.0f times %s. Storage this much slower than expected suggests a sync mount, a dying disk or a throttled CPU",
		float64(whole)/float64(est), from)
	if left >= 0 {
		line += fmt.Sprintf("; the run's time bound stops it in %s", spell(left))
	} else {
		line += "; --max-time bounds the run"
	}
	return line, true
}

// opsRate is done operations of phase t over elapsed in the test's rate
// unit (KiB/s for the I/O tests, whose per-char operations are bytes and
// block operations chunks).
func opsRate(t result.FSTest, done int64, elapsed time.Duration, chunk int) float64 {
	work := float64(done)
	switch {
	case t == result.PutChar || t == result.GetChar:
		work /= 1024
	case t == result.Seeks:
	case t.IsIO():
		work *= float64(chunk) / 1024
	}
	return work / elapsed.Seconds()
}

// rateText spells a rate in test t's unit for a person: bytes per second
// for the I/O tests.
func rateText(t result.FSTest, rate float64) string {
	if t.IsIO() && t != result.Seeks {
		return humanize.IBytes(uint64(rate*1024)) + "/s"
	}
	return fmt.Sprintf("%s %s", humanize.Comma(int64(rate)), t.RateUnit())
}

// spell rounds d for a line a person reads: to the second from a minute
// up, to a tenth of a second from a second, to the millisecond below.
func spell(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
