package copybench

import (
	"context"

	"github.com/clydebench/clyde/result"
)

// Phases is what a many-rank job does around each timed copy (the
// coordinator in cmd/clyde): step counts the copies in order (a set with
// a method), the same on every rank.
type Phases interface {
	// Before returns when every rank has made and evicted its sources
	// for the step: the common start. done reads how many files this
	// rank has copied in the step so far, from any goroutine.
	Before(ctx context.Context, step int, done func() int64) error
	// After hands this rank's figure of the step to the coordinator and
	// returns when every rank is done with it.
	After(ctx context.Context, step int, fig result.CopyFigure) error
}
