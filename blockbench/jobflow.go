package blockbench

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clydebench/clyde/result"
)

// How the jobs of a plan hold each other, as fio 3.33 does: flow (flow.c:
// jobs sharing a flow id keep their I/O counts in the ratio of their
// weights), wait_for (backend.c waitee_running: a job starts once the job
// it names has finished) and exitall with exit_what (libfio.c
// fio_terminate_threads: a job that ends stops others).

// Flow is fio's flow, flow_id and flow_sleep: a workload with a Weight
// (1..MaxFlowWeight) shares a counter with every workload of the plan
// with its ID, and before each I/O it is held while its own count's share
// of the counter is above its weight's share of theirs. Every workload of
// the plan counts from the start, those of later groups too (fio adds a
// job's weight when it reads the job file), and a worker leaves when it
// ends. A held worker first completes what it has in flight and sleeps
// Sleep when it is set, or else waits a moment and asks again (fio spins).
type Flow struct {
	ID     uint32
	Weight int
	Sleep  time.Duration
}

// MaxFlowWeight is fio's FLOW_MAX_WEIGHT.
const MaxFlowWeight = 1000

// ExitWhat is what fio's exitall stops when one of a workload's workers
// ends: its reporting group (fio's exit_what=group), every worker running
// (stonewall: those still waiting to start go on), or everything, the
// later groups too (all). ExitNone is a plan without exitall.
type ExitWhat int

// fio's exit_what values, and none.
const (
	ExitNone ExitWhat = iota
	ExitGroup
	ExitStonewall
	ExitAll
)

// validateFlow holds flow, wait_for and exit_what to what runs.
func (w *Workload) validateFlow() error {
	switch {
	case w.Flow.Weight < 0 || w.Flow.Weight > MaxFlowWeight:
		return result.Usagef("--flow", "workload %s: weight %d is outside 0..%d", w.Name, w.Flow.Weight, MaxFlowWeight)
	case w.Flow.Sleep < 0 || w.Flow.Sleep > MaxRuntime:
		return result.Usagef("--flow_sleep", "workload %s: %v is outside 0..%v", w.Name, w.Flow.Sleep, MaxRuntime)
	case w.WaitFor != "" && w.WaitFor == w.Name:
		return result.Usagef("--wait_for", "workload %s cannot wait for itself", w.Name)
	case w.NumberIOs < 0:
		return result.Usagef("--number_ios", "workload %s: %d is negative", w.Name, w.NumberIOs)
	case w.NumberIOs > 0 && w.TimeBased:
		return result.Usagef("--number_ios", "workload %s: number_ios=%d with time_based: fio 3.33 stops issuing I/O at the limit and spins until the runtime ends; give one of them", w.Name, w.NumberIOs)
	case w.Exit < ExitNone || w.Exit > ExitAll:
		return result.Usagef("--exit_what", "workload %s: unknown exit_what %d", w.Name, w.Exit)
	}
	return nil
}

// flowShare is one flow id's counters (fio's struct fio_flow): the I/Os
// of its workers so far plus one, and the weights of its workers.
type flowShare struct {
	counter atomic.Int64
	weight  atomic.Int64
}

// planFlows gives every workload with a flow weight its flow's counters,
// every worker of every group counted in from the start as fio counts a
// job when it reads it. A workload of an earlier group without a runtime
// that shares its flow with one of a later group is refused: the later
// one's weight holds it back for good (fio 3.33 stalls it until its
// runtime, forever without one).
func planFlows(groups [][]*workload) error {
	flows := map[uint32]*flowShare{}
	last := map[uint32]int{}
	for gi, ws := range groups {
		for _, w := range ws {
			if w.Flow.Weight == 0 {
				continue
			}
			f := flows[w.Flow.ID]
			if f == nil {
				f = new(flowShare)
				f.counter.Store(1)
				flows[w.Flow.ID] = f
			}
			f.weight.Add(int64(w.Flow.Weight * w.NumJobs))
			w.flow = f
			last[w.Flow.ID] = gi
		}
	}
	for gi, ws := range groups {
		for _, w := range ws {
			if w.flow != nil && last[w.Flow.ID] > gi && w.Runtime == 0 {
				return result.Usagef("--flow", "workload %s: flow_id %d has jobs in a later group, whose weight holds this one back from the start until its runtime, as fio 3.33 does; without a runtime it would never end: give it a runtime or the later jobs another flow_id", w.Name, w.Flow.ID)
			}
		}
	}
	return nil
}

// flowHeld is fio's flow_threshold_exceeded before each I/O: the worker
// is held while its count's share of its flow's counter is above its
// weight's share; otherwise the I/O is counted in both.
func (w *worker) flowHeld() bool {
	f := w.spec.flow
	if float64(w.flowCount)/float64(f.counter.Load()) > float64(w.spec.Flow.Weight)/float64(f.weight.Load()) {
		return true
	}
	f.counter.Add(1)
	w.flowCount++
	return false
}

// leaveFlow takes the worker's count and weight out of its flow when it
// ends (fio's flow_exit_job), so the others go on in their own ratio.
func (w *worker) leaveFlow() {
	if f := w.spec.flow; f != nil {
		f.counter.Add(-w.flowCount)
		f.weight.Add(-int64(w.spec.Flow.Weight))
		w.flowCount = 0
	}
}

// flowWait holds the worker once: with Sleep, what it has in flight
// completes and it sleeps (fio's io_u_quiesce and usleep); without, it
// gives the others a moment. It returns the clock and whether to stop.
func (l *ioLoop) flowWait(w *worker, now int64) (int64, bool) {
	wait := int64(time.Microsecond)
	if s := w.spec.Flow.Sleep; s > 0 {
		for l.taken() > 0 && !l.failed {
			var stop bool
			if now, _, stop = l.queuedComplete(w, now, l.taken(), false); stop {
				return now, true
			}
		}
		wait = int64(s)
	}
	if w.deadline > 0 {
		wait = min(wait, max(w.deadline-now, 0))
	}
	time.Sleep(time.Duration(min(wait, checkInterval)))
	now = w.now()
	if now >= w.nextEvent || w.stopped() {
		return now, w.tick(now)
	}
	return now, false
}

// jobGate is one group's wait_for and exitall state: which workloads'
// workers are still to finish, and the halts exitall sets.
type jobGate struct {
	mu sync.Mutex
	// left counts each workload's workers not yet finished; done[k] is
	// closed when ws[k]'s last one has.
	left []int
	done []chan struct{}
	ws   []*workload
	// workers are every worker of the group, by workload, for exitall.
	workers [][]*worker
	// all is set by exit_what=all: the plan's later groups do not run.
	all atomic.Bool
}

// newJobGate readies the group's gate and points each waiting workload at
// the done channels of the workloads its WaitFor names in the group (one
// of an earlier group has finished already).
func newJobGate(ws []*workload, workers [][]*worker) *jobGate {
	g := &jobGate{left: make([]int, len(ws)), done: make([]chan struct{}, len(ws)), ws: ws, workers: workers}
	for k, w := range ws {
		g.left[k] = w.NumJobs
		g.done[k] = make(chan struct{})
	}
	for _, w := range ws {
		w.waitees = nil
		if w.WaitFor == "" {
			continue
		}
		for k, o := range ws {
			if o.Name == w.WaitFor && o.Name != w.Name {
				w.waitees = append(w.waitees, g.done[k])
			}
		}
	}
	for k, wk := range workers {
		for _, wr := range wk {
			wr.gate, wr.set = g, k
		}
		if ws[k].neverStarts {
			g.halt(k, false)
		}
	}
	return g
}

// finished records that a worker of ws[set] ended and, when the plan has
// exitall, stops what its exit_what names (fio's fio_terminate_threads
// from the end of thread_main).
func (g *jobGate) finished(set int) {
	g.mu.Lock()
	g.left[set]--
	if g.left[set] == 0 {
		close(g.done[set])
	}
	g.mu.Unlock()
	w := g.ws[set]
	switch w.Exit {
	case ExitGroup:
		for k, o := range g.ws {
			if o.groupID == w.groupID {
				g.halt(k, false)
			}
		}
	case ExitStonewall:
		for k := range g.ws {
			g.halt(k, true)
		}
	case ExitAll:
		g.all.Store(true)
		for k := range g.ws {
			g.halt(k, false)
		}
	}
}

// halt stops ws[k]'s workers at their next tick, or only those that have
// started when running is set.
func (g *jobGate) halt(k int, running bool) {
	for _, wr := range g.workers[k] {
		if !running || wr.started.Load() {
			wr.halted.Store(true)
		}
	}
}

// waitJobs holds a worker whose workload waits for others (wait_for)
// until they have finished; false says it was stopped first.
func (w *worker) waitJobs(stopped func() bool) bool {
	if len(w.spec.waitees) == 0 {
		return true
	}
	check := time.NewTicker(time.Duration(checkInterval))
	defer check.Stop()
	for _, done := range w.spec.waitees {
	wait:
		for {
			select {
			case <-done:
				break wait
			case <-check.C:
				if stopped() {
					return false
				}
			}
		}
	}
	return true
}

// waitFor holds the worker until the workloads its WaitFor names have
// finished (fio's waitee_running) and moves its start there; false says
// it was stopped first.
func (w *worker) waitFor(start time.Time) bool {
	if w.halted.Load() {
		w.stoppedEarly = true // exitall stopped it before it began
		return false
	}
	if len(w.spec.waitees) == 0 {
		return true
	}
	if !w.waitJobs(w.stopped) {
		w.stoppedEarly = true
		return false
	}
	w.delayStart(int64(time.Since(start)))
	return true
}

// endWork is the end of a worker's work, as fio's thread exit: it leaves
// its flow and tells its group's gate, which may stop others (exitall).
func (w *worker) endWork() {
	w.leaveFlow()
	if w.gate != nil {
		w.gate.finished(w.set)
	}
}

// groupEnd is what exitall left of a group: quiet[e] says entry e's
// workers were all stopped by it before any I/O (fio's jobs that never
// got to start: an entry of zeros, not a failure), and all that
// exit_what=all ends the plan here.
type groupEnd struct {
	quiet []bool
	all   bool
}

// end is the gate's groupEnd, entry[k] the report entry of ws[k].
func (g *jobGate) end(entry []int, entries int) groupEnd {
	out := groupEnd{quiet: make([]bool, entries), all: g.all.Load()}
	for e := range out.quiet {
		out.quiet[e] = true
	}
	for k, wk := range g.workers {
		for _, wr := range wk {
			if !wr.halted.Load() || wr.ios != [2]int64{} {
				out.quiet[entry[k]] = false
			}
		}
	}
	return out
}

// errExitAll ends a plan's groups after one whose exit_what=all stopped
// everything: the later groups never start, as fio's.
var errExitAll = errors.New("exit_what=all stopped every job")
