package blockbench

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clydebench/clyde/result"
)

// Analysis is what a preset adds to a plan beyond its jobs: it refuses the
// groups it cannot follow before anything runs, can end each group early
// from the group's live per-second series, and adds what it finds to the
// result once the run is over. blockpreset.SteadyState is one (the
// sustained-load analysis and steady state).
type Analysis interface {
	// Check refuses one group's workloads; a refusal is a
	// *result.UsageError naming the flag.
	Check(group []Workload) error
	// Judge is a fresh judge for one group as it starts; nil lets the
	// group run its course.
	Judge() GroupJudge
	// Analyse adds to res what the analysis finds in the run; stopped[g]
	// is true when a judge ended group g.
	Analyse(res *result.Block, stopped map[int]bool)
}

// GroupJudge decides, while a group runs, whether it has what it needs.
type GroupJudge interface {
	// Done gets the group's IOPS and bytes per second over the seconds
	// every worker has completed (slot for slot the result's series), a
	// few times a second as the series grows, and says whether to end the
	// group now.
	Done(iops, bw []float64) bool
}

// groupWatch follows one group while it runs and sets its stop flag once
// the plan's judge says so. Workers append their per-second marks under mu
// (once a second, never per I/O); the watch merges the slots every worker
// has, exactly as mergeSeries does afterwards, so what it stopped on is what
// the result's series shows.
type groupWatch struct {
	judge   GroupJudge
	stop    *atomic.Bool
	mu      sync.Mutex
	workers []*worker
	done    chan struct{}
	exited  chan struct{}
	// reached is set once the judge ended the group (read after exited is
	// closed).
	reached bool
}

// watchGroup starts a watch that ends the group when the analysis' judge
// says so; nil when the plan has no judge.
func watchGroup(a Analysis, ws []*workload, stop *atomic.Bool) *groupWatch {
	if a == nil {
		return nil
	}
	judge := a.Judge()
	if judge == nil {
		return nil
	}
	g := &groupWatch{judge: judge, stop: stop, done: make(chan struct{}), exited: make(chan struct{})}
	for _, w := range ws {
		w.watch = g
	}
	go g.loop()
	return g
}

// add is called by newWorker for each worker of the group.
func (g *groupWatch) add(w *worker) {
	g.mu.Lock()
	g.workers = append(g.workers, w)
	g.mu.Unlock()
	w.live = &g.mu
}

func (g *groupWatch) loop() {
	defer close(g.exited)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-g.done:
			return
		case <-t.C:
		}
		g.mu.Lock()
		iops, bw := liveSeries(g.workers)
		g.mu.Unlock()
		if g.judge.Done(iops, bw) {
			g.reached = true
			g.stop.Store(true)
			return
		}
	}
}

// finish stops the watch; it says whether it ended the group.
func (g *groupWatch) finish() bool {
	if g == nil {
		return false
	}
	close(g.done)
	<-g.exited
	return g.reached
}

// liveSeries is the group's IOPS and bytes per second over the slots every
// worker has completed. Callers hold the watch's lock.
func liveSeries(workers []*worker) (iops, bw []float64) {
	if len(workers) == 0 {
		return nil, nil
	}
	// Marks come every markEvery; a slot of the per-second series spans
	// marksPerSample of them, as in mergeSeries.
	n := math.MaxInt
	for _, w := range workers {
		n = min(n, (len(w.marks)-1)/marksPerSample)
	}
	for k := 1; k <= n; k++ {
		var ios, bytes, dur int64
		for _, w := range workers {
			prev, cur := w.marks[(k-1)*marksPerSample], w.marks[k*marksPerSample]
			dur = max(dur, cur.atNs-prev.atNs)
			ios += cur.ios[dirRead] + cur.ios[dirWrite] - prev.ios[dirRead] - prev.ios[dirWrite]
			bytes += cur.bytes[dirRead] + cur.bytes[dirWrite] - prev.bytes[dirRead] - prev.bytes[dirWrite]
		}
		if dur <= 0 {
			dur = int64(time.Second)
		}
		iops = append(iops, float64(ios)*1e9/float64(dur))
		bw = append(bw, float64(bytes)*1e9/float64(dur))
	}
	return iops, bw
}

// analyse adds the plan's analysis, when it has one, to the result.
func analyse(a Analysis, res *result.Block, stopped map[int]bool) {
	if a != nil {
		a.Analyse(res, stopped)
	}
}
