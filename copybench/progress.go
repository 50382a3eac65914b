package copybench

import (
	"fmt"
	"io"
)

// progress prints one line per step, "Copying 100Mx1 with readwrite...done",
// for a person watching and for the tests that act on a step.
type progress struct{ w io.Writer }

func (p *progress) begin(format string, args ...any) {
	if p.w != nil {
		fmt.Fprintf(p.w, format+"...", args...)
	}
}

func (p *progress) end(err error) {
	switch {
	case p.w == nil:
	case err != nil:
		fmt.Fprintln(p.w, "failed")
	default:
		fmt.Fprintln(p.w, "done")
	}
}
