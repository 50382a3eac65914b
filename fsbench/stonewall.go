package fsbench

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/result"
)

// Stonewaller is a Phases whose ranks share each create phase's stonewall
// (--stonewall across a many-client job).
type Stonewaller interface {
	// Wall is closed once any rank has reached the phase's stonewall, so
	// that every other rank stops too.
	Wall(iteration int, test result.FSTest) <-chan struct{}
	// AgreeStonewall gives this rank's counts at the stonewall and returns
	// the whole job's (every rank's combined).
	AgreeStonewall(ctx context.Context, iteration int, test result.FSTest, mine StonewallCounts) (StonewallCounts, error)
}

// StonewallCounts are the workers' files at a stonewall.
type StonewallCounts struct {
	Items     int64 `json:"items"`
	Min       int64 `json:"min"`
	Max       int64 `json:"max"`
	ElapsedNs int64 `json:"elapsed_ns"`
	// FirstDone is true when a worker stopped because it had made all its
	// files, before the time ran out.
	FirstDone bool `json:"first_done"`
}

// Combine adds another worker's (or rank's) counts to c.
func (c StonewallCounts) Combine(o StonewallCounts) StonewallCounts {
	return StonewallCounts{Items: c.Items + o.Items, Min: min(c.Min, o.Min), Max: max(c.Max, o.Max),
		ElapsedNs: max(c.ElapsedNs, o.ElapsedNs), FirstDone: c.FirstDone || o.FirstDone}
}

// wall is one create phase's stonewall on this rank: every copy stops at
// it, the counts are agreed (across ranks too), and each copy then makes
// files up to the highest count.
type wall struct {
	limit  time.Duration
	copies int
	hit    chan struct{}
	once   sync.Once
	job    <-chan struct{} // another rank reached it; nil without a job
	agree  func(context.Context, StonewallCounts) (StonewallCounts, error)

	mu     sync.Mutex
	n      int
	counts StonewallCounts
	done   chan struct{}
	agreed StonewallCounts
	err    error
}

// newWall is the stonewall of a create phase, nil without --stonewall.
func (r *runner) newWall(iteration int, test result.FSTest) *wall {
	if r.opts.Stonewall <= 0 {
		return nil
	}
	w := &wall{limit: r.opts.Stonewall, copies: len(r.copies), hit: make(chan struct{}), done: make(chan struct{}),
		counts: StonewallCounts{Min: math.MaxInt64}}
	if sw, ok := r.opts.Phases.(Stonewaller); ok {
		w.job = sw.Wall(iteration, test)
		w.agree = func(ctx context.Context, mine StonewallCounts) (StonewallCounts, error) {
			return sw.AgreeStonewall(ctx, iteration, test, mine)
		}
	}
	return w
}

// reached says whether a copy that started at start (cpuclock.Nanotime)
// must stop now.
func (w *wall) reached(start int64) bool {
	select {
	case <-w.hit:
		return true
	case <-w.job:
		return true
	default:
	}
	return time.Duration(cpuclock.Nanotime()-start) >= w.limit
}

// stop is a copy at the stonewall with count files made, elapsed after its
// start; finished says it had made them all. It returns how many files the
// copy must have in the end: the most any worker made.
func (w *wall) stop(ctx context.Context, count, elapsed int64, finished bool) (int64, error) {
	w.once.Do(func() { close(w.hit) })
	w.mu.Lock()
	w.counts = w.counts.Combine(StonewallCounts{Items: count, Min: count, Max: count, ElapsedNs: elapsed, FirstDone: finished})
	w.n++
	last := w.n == w.copies
	mine := w.counts
	w.mu.Unlock()
	if last {
		agreed, err := mine, error(nil)
		if w.agree != nil {
			agreed, err = w.agree(ctx, mine)
		}
		w.agreed, w.err = agreed, err
		close(w.done)
	}
	select {
	case <-w.done:
		return w.agreed.Max, w.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// result is the phase's stonewall for its result.
func (w *wall) result() *result.FSStonewall {
	select {
	case <-w.done:
	default:
		return nil
	}
	a := w.agreed
	sw := &result.FSStonewall{Seconds: w.limit.Seconds(), Items: a.Items, MinItems: a.Min, MaxItems: a.Max, ElapsedNs: a.ElapsedNs, Wall: "time"}
	if a.FirstDone {
		sw.Wall = "first done"
	}
	if a.ElapsedNs > 0 {
		sw.RatePerSec = float64(a.Items) / (float64(a.ElapsedNs) / 1e9)
	}
	return sw
}
