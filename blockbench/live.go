package blockbench

import (
	"context"
	"fmt"
	"time"

	"github.com/clydebench/clyde/internal/liveline"
)

// live is the progress line of a plan (internal/liveline): one line per
// row, its groups the line's steps, its workers the sources of the rate.
// All of its methods are no-ops on a nil *live (idle still waits).
type live struct {
	line   *liveline.Line
	labels []GroupLabel
}

// newLive prepares the progress of p's groups; nil when p has no Progress.
// A group's run time is its workloads' longest ramp and runtime, -1 when
// one of them has no time limit.
func newLive(p *Plan, groups [][]*workload) *live {
	if p.Progress == nil {
		return nil
	}
	runs := make([]time.Duration, len(groups))
	for i, ws := range groups {
		for _, w := range ws {
			if w.Runtime == 0 {
				runs[i] = -1
				break
			}
			runs[i] = max(runs[i], w.RampTime+w.Runtime)
		}
	}
	return &live{line: liveline.New(p.Progress, runs, p.Idle, p.ProgressEvery, p.ProgressNewline), labels: p.Labels}
}

// label is group i's label: the plan's, or its first workload's name.
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

// begin starts the line of group i: its workers register as runGroup
// makes them (add), and the line is redrawn until end.
func (l *live) begin(i int, ws []*workload) {
	if l == nil {
		return
	}
	lb := l.label(i, ws)
	l.line.Begin(i, lb.Row, liveline.Pass(lb.Pass, lb.Passes))
}

// add registers a worker of the running group: it publishes its counts
// at its ticks.
func (l *live) add(w *worker) {
	if l == nil {
		return
	}
	w.snap = new(liveline.Counts)
	l.line.Add(w.snap)
}

// end stops redrawing the running group and draws its line once more.
func (l *live) end() {
	if l != nil {
		l.line.End()
	}
}

// idle waits d before group i (CrystalDiskMark's interval), showing it on
// the line of the row to come; it returns early when ctx ends.
func (l *live) idle(ctx context.Context, i int, ws []*workload, d time.Duration) error {
	if l == nil {
		return (*liveline.Line)(nil).Idle(ctx, i, "", d)
	}
	return l.line.Idle(ctx, i, l.label(i, ws).Row, d)
}

// note shows a step that is not a group (filling the drive), on its own
// line.
func (l *live) note(s string) {
	if l != nil {
		l.line.Note(s)
	}
}

// close ends the last line.
func (l *live) close() {
	if l != nil {
		l.line.Close()
	}
}
