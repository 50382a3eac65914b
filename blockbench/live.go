package blockbench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
)

// liveEvery is how often the progress line is redrawn.
const liveEvery = 500 * time.Millisecond

// live draws the progress of a plan: one line per row, redrawn in place
// while the row's groups run, ended with a newline when the next row
// starts. All of its methods are no-ops on a nil *live.
type live struct {
	w      io.Writer
	labels []GroupLabel
	// runs is each group's expected run time (ramp and runtime), -1
	// where a group has no time limit; idles its wait before it.
	runs  []time.Duration
	idles []time.Duration

	mu      sync.Mutex
	workers []*worker
	group   int
	began   time.Time
	total   time.Duration // of the running group; -1 unknown
	waiting time.Duration // of the running interval; 0 none
	open    bool          // a row's line is drawn and not yet ended
	row     string
	status  string // what the line says besides the figures ("interval 2/5 s", "filling ...")
	prev    []prevSnap
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

type prevSnap struct{ ios, bytes, atNs int64 }

// newLive prepares the progress of p's groups; nil when p has no Progress.
func newLive(p *Plan, groups [][]*workload) *live {
	if p.Progress == nil {
		return nil
	}
	l := &live{w: p.Progress, labels: p.Labels, runs: make([]time.Duration, len(groups)), idles: make([]time.Duration, len(groups)),
		every: cmp.Or(p.ProgressEvery, liveEvery), newline: p.ProgressNewline}
	for i, ws := range groups {
		var d time.Duration
		for _, w := range ws {
			if w.Runtime == 0 {
				d = -1
				break
			}
			d = max(d, w.RampTime+w.Runtime)
		}
		l.runs[i] = d
		if i < len(p.Idle) {
			l.idles[i] = p.Idle[i]
		}
	}
	return l
}

func (l *live) label(i int, ws []*workload) GroupLabel {
	if i < len(l.labels) {
		return l.labels[i]
	}
	lb := GroupLabel{Row: ws[0].Name}
	if len(ws) > 1 {
		lb.Row += fmt.Sprintf(" (+%d)", len(ws)-1)
	}
	return lb
}

// begin starts the line of group i: the workloads' workers register as
// runGroup makes them (add), and a goroutine redraws the line until end.
func (l *live) begin(i int, ws []*workload) {
	if l == nil {
		return
	}
	lb := l.label(i, ws)
	l.mu.Lock()
	l.startRow(lb.Row)
	l.group, l.began, l.workers, l.prev = i, time.Now(), nil, nil
	l.total = l.runs[i]
	l.status = passText(lb)
	l.iops, l.bw = 0, 0
	l.mu.Unlock()
	l.run()
}

// startRow ends the previous row's line when the row changes.
func (l *live) startRow(row string) {
	if l.open && row != l.row {
		fmt.Fprintln(l.w)
		l.open = false
	}
	l.row = row
}

func passText(lb GroupLabel) string {
	switch {
	case lb.Passes == 0:
		return ""
	case lb.Pass == 0:
		return "warm-up"
	}
	return fmt.Sprintf("pass %d/%d", lb.Pass, lb.Passes)
}

// add registers a worker of the running group.
func (l *live) add(w *worker) {
	if l == nil {
		return
	}
	w.snap = new(liveSnap)
	l.mu.Lock()
	l.workers = append(l.workers, w)
	l.prev = append(l.prev, prevSnap{})
	l.mu.Unlock()
}

func (l *live) run() {
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

// end stops redrawing group i and draws its line once more.
func (l *live) end() {
	if l == nil || !l.running {
		return
	}
	close(l.stop)
	<-l.done
	l.running = false
	l.mu.Lock()
	l.sample()
	l.draw()
	l.workers = nil
	l.mu.Unlock()
}

// sample takes the current rate from what each worker published since the
// last sample: a rate per worker over its own tick times, summed.
func (l *live) sample() {
	var iops, bw float64
	fresh := false
	for k, w := range l.workers {
		at := w.snap.atNs.Load()
		cur := prevSnap{ios: w.snap.ios.Load(), bytes: w.snap.bytes.Load(), atNs: at}
		// Against the previous snapshot, or for the first one (prev is
		// zero) since the worker started.
		p := l.prev[k]
		if at > p.atNs && cur.ios >= p.ios {
			dt := float64(at-p.atNs) / 1e9
			iops += float64(cur.ios-p.ios) / dt
			bw += float64(cur.bytes-p.bytes) / dt
			fresh = true
		}
		if at > p.atNs {
			l.prev[k] = cur
		}
	}
	if fresh {
		l.iops, l.bw = iops, bw
	}
}

// draw rewrites the line.
func (l *live) draw() {
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
	if len(l.workers) > 0 {
		fmt.Fprintf(&b, "  %s IOPS  %.1f MB/s", humanize.Comma(int64(l.iops)), l.bw/1e6)
	}
	fmt.Fprintf(&b, "  ETA %s", l.eta(elapsed))
	fmt.Fprint(l.w, b.String())
	l.open = true
}

// eta is the time left for the whole plan: what is left of the running
// step (a wait of `waiting` or a group's run), and every group after it.
func (l *live) eta(elapsed time.Duration) string {
	const unknown = "unknown (a job without --runtime)"
	left := time.Duration(0)
	switch {
	case l.waiting > 0:
		left = max(0, l.waiting-elapsed)
		if l.runs[l.group] < 0 {
			return unknown
		}
		left += l.runs[l.group]
	case l.total < 0:
		return unknown
	default:
		left = max(0, l.total-elapsed)
	}
	for k := l.group + 1; k < len(l.runs); k++ {
		if l.runs[k] < 0 {
			return unknown
		}
		left += l.idles[k] + l.runs[k]
	}
	return left.Round(time.Second).String()
}

// idle waits d before group i (CrystalDiskMark's interval), showing it on
// the line of the row to come; it returns early when ctx ends.
func (l *live) idle(ctx context.Context, i int, ws []*workload, d time.Duration) error {
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
	lb := l.label(i, ws)
	l.mu.Lock()
	l.startRow(lb.Row)
	l.group, l.began, l.waiting, l.workers = i, time.Now(), d, nil
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

// note shows a step that is not a group (filling the drive), on its own
// line.
func (l *live) note(s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.startRow("")
	fmt.Fprintf(l.w, "\r\033[K%s", s)
	l.open = true
}

// close ends the last line.
func (l *live) close() {
	if l == nil {
		return
	}
	l.end()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open {
		fmt.Fprintln(l.w)
		l.open = false
	}
}
