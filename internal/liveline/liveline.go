// Package liveline draws the progress line fio prints while a job runs
// (its ETA line): one line per row of a plan, redrawn in place while the
// row's steps run, with the rate of the sources feeding it and the time
// left for the whole plan. It only samples and formats: the engine that
// runs the steps tells it when each begins and ends, and its workers
// publish their counts (Counts) at their own pace, never per I/O.
package liveline

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
)

// Every is how often the line is redrawn unless told otherwise.
const Every = 500 * time.Millisecond

// Counter is what the line samples of one source (a worker): its I/Os and
// bytes so far, as of atNs, the nanoseconds since the source started (0:
// nothing published yet).
type Counter interface {
	Counts() (ios, bytes, atNs int64)
}

// Counts is a Counter a worker publishes to from its own goroutine while
// the line's goroutine reads it.
type Counts struct {
	ios, bytes, atNs atomic.Int64
}

// Publish stores the source's counts as of atNs.
func (c *Counts) Publish(ios, bytes, atNs int64) {
	c.ios.Store(ios)
	c.bytes.Store(bytes)
	c.atNs.Store(atNs)
}

// Counts is what was last published.
func (c *Counts) Counts() (ios, bytes, atNs int64) {
	return c.ios.Load(), c.bytes.Load(), c.atNs.Load()
}

// IOs is the I/Os last published.
func (c *Counts) IOs() int64 { return c.ios.Load() }

// Line is the progress of a plan of steps, each run in turn, each maybe
// after a wait. All of its methods but Idle are no-ops on a nil *Line.
type Line struct {
	w io.Writer
	// runs is each step's expected run time, -1 where a step has no time
	// limit; idles the wait before it.
	runs, idles []time.Duration

	mu      sync.Mutex
	sources []Counter
	prev    []snap
	step    int
	began   time.Time
	total   time.Duration // of the running step; -1 unknown
	waiting time.Duration // of the running wait; 0 none
	open    bool          // a row's line is drawn and not yet ended
	row     string
	status  string // what the line says besides the figures ("interval 2/5 s", "filling ...")
	iops    float64
	bw      float64
	stop    chan struct{}
	done    chan struct{}
	running bool
	// every is the redraw period; newline, when set, how often a new
	// line starts (lineAt: when the line drawn on began).
	every, newline time.Duration
	lineAt         time.Time
}

type snap struct{ ios, bytes, atNs int64 }

// New prepares the line of a plan whose steps take runs (-1: no time
// limit) after waits of idles (as long as runs, or shorter: no wait), on
// w, redrawn every every (0: Every); newline, when above 0, starts a new
// line that often (fio's --eta-newline).
func New(w io.Writer, runs, idles []time.Duration, every, newline time.Duration) *Line {
	l := &Line{w: w, runs: runs, idles: make([]time.Duration, len(runs)), every: cmp.Or(every, Every), newline: newline}
	copy(l.idles, idles)
	return l
}

// Pass is the status of a step that is one pass of a row's passes: "pass
// 1/5", "warm-up" for pass 0, "" when the row has no passes.
func Pass(pass, passes int) string {
	switch {
	case passes == 0:
		return ""
	case pass == 0:
		return "warm-up"
	}
	return fmt.Sprintf("pass %d/%d", pass, passes)
}

// Begin starts the line of step i, on row with status: the step's sources
// register as they are made (Add), and a goroutine redraws the line until
// End.
func (l *Line) Begin(i int, row, status string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.startRow(row)
	l.step, l.began, l.sources, l.prev = i, time.Now(), nil, nil
	l.total = l.runs[i]
	l.status = status
	l.iops, l.bw = 0, 0
	l.mu.Unlock()
	l.run()
}

// startRow ends the previous row's line when the row changes.
func (l *Line) startRow(row string) {
	if l.open && row != l.row {
		fmt.Fprintln(l.w)
		l.open = false
	}
	l.row = row
}

// Add registers a source of the running step.
func (l *Line) Add(c Counter) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.sources = append(l.sources, c)
	l.prev = append(l.prev, snap{})
	l.mu.Unlock()
}

func (l *Line) run() {
	l.stop, l.done, l.running = make(chan struct{}), make(chan struct{}), true
	go func() {
		defer close(l.done)
		t := time.NewTicker(l.every)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				l.mu.Lock()
				l.sample()
				l.draw()
				l.mu.Unlock()
			}
		}
	}()
}

// End stops redrawing the running step and draws its line once more.
func (l *Line) End() {
	if l == nil || !l.running {
		return
	}
	close(l.stop)
	<-l.done
	l.running = false
	l.mu.Lock()
	l.sample()
	l.draw()
	l.sources = nil
	l.mu.Unlock()
}

// sample takes the current rate from what each source published since the
// last sample: a rate per source over its own tick times, summed.
func (l *Line) sample() {
	var iops, bw float64
	fresh := false
	for k, c := range l.sources {
		var cur snap
		cur.ios, cur.bytes, cur.atNs = c.Counts()
		// Against the previous snapshot, or for the first one (prev is
		// zero) since the source started.
		p := l.prev[k]
		if cur.atNs > p.atNs && cur.ios >= p.ios {
			dt := float64(cur.atNs-p.atNs) / 1e9
			iops += float64(cur.ios-p.ios) / dt
			bw += float64(cur.bytes-p.bytes) / dt
			fresh = true
		}
		if cur.atNs > p.atNs {
			l.prev[k] = cur
		}
	}
	if fresh {
		l.iops, l.bw = iops, bw
	}
}

// draw rewrites the line.
func (l *Line) draw() {
	elapsed := time.Since(l.began)
	var b strings.Builder
	if now := time.Now(); !l.open || l.newline > 0 && now.Sub(l.lineAt) >= l.newline {
		if l.open {
			b.WriteByte('\n') // fio's --eta-newline: keep the line, start another
		}
		l.lineAt = now
	}
	fmt.Fprintf(&b, "\r\033[K%s", l.row)
	if l.status != "" {
		fmt.Fprintf(&b, "  %s", l.status)
	}
	switch {
	case l.waiting > 0:
	case l.total > 0:
		fmt.Fprintf(&b, "  %.1f/%.0f s", min(elapsed, l.total).Seconds(), l.total.Seconds())
	default:
		fmt.Fprintf(&b, "  %.1f s", elapsed.Seconds())
	}
	if len(l.sources) > 0 {
		fmt.Fprintf(&b, "  %s IOPS  %.1f MB/s", humanize.Comma(int64(l.iops)), l.bw/1e6)
	}
	fmt.Fprintf(&b, "  ETA %s", l.eta(elapsed))
	fmt.Fprint(l.w, b.String())
	l.open = true
}

// eta is the time left for the whole plan: what is left of the running
// step (a wait of `waiting` or a step's run), and every step after it.
func (l *Line) eta(elapsed time.Duration) string {
	const unknown = "unknown (a job without --runtime)"
	left := time.Duration(0)
	switch {
	case l.waiting > 0:
		left = max(0, l.waiting-elapsed)
		if l.runs[l.step] < 0 {
			return unknown
		}
		left += l.runs[l.step]
	case l.total < 0:
		return unknown
	default:
		left = max(0, l.total-elapsed)
	}
	for k := l.step + 1; k < len(l.runs); k++ {
		if l.runs[k] < 0 {
			return unknown
		}
		left += l.idles[k] + l.runs[k]
	}
	return left.Round(time.Second).String()
}

// Idle waits d before step i (CrystalDiskMark's interval), showing it on
// the line of the row to come; it returns early when ctx ends. On a nil
// *Line it only waits.
func (l *Line) Idle(ctx context.Context, i int, row string, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	if l == nil {
		select {
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	l.mu.Lock()
	l.startRow(row)
	l.step, l.began, l.waiting, l.sources = i, time.Now(), d, nil
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting = 0
		l.mu.Unlock()
	}()
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	for {
		l.mu.Lock()
		l.status = fmt.Sprintf("interval %.0f/%.0f s", time.Since(l.began).Seconds(), d.Seconds())
		l.draw()
		l.mu.Unlock()
		select {
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// Note shows a step that is not one of the plan's (filling the drive), on
// its own line.
func (l *Line) Note(s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.startRow("")
	fmt.Fprintf(l.w, "\r\033[K%s", s)
	l.open = true
}

// Close ends the last line.
func (l *Line) Close() {
	if l == nil {
		return
	}
	l.End()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open {
		fmt.Fprintln(l.w)
		l.open = false
	}
}
