package fsbench

import (
	"context"

	"github.com/clydebench/clyde/result"
)

// Phases runs each phase in step with other processes: the ranks of a
// many-client job (cmd/clyde over internal/coord). With Options.Phases set,
// Run takes no run lock on Dir, since the job's ranks share it; the caller
// guards it.
type Phases interface {
	// Before is called once a phase is set up, just before its common
	// start (a barrier across the ranks). done reports how many operations
	// the phase has finished so far; it may be called from any goroutine.
	Before(ctx context.Context, iteration int, test result.FSTest, done func() int64) error
	// After is called with the phase's result once it ended well here
	// (the ranks' closing barrier, and their results to rank 0).
	After(ctx context.Context, iteration int, test result.FSTest, tr *result.FSTestResult) error
}

// doneOps sums the copies' finished-operation counters (updated every
// checkEveryOps operations).
func (r *runner) doneOps() int64 {
	var n int64
	for _, c := range r.copies {
		n += c.done.Load()
	}
	return n
}
