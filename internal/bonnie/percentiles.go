package bonnie

import (
	"fmt"
	"io"

	"github.com/clydebench/clyde/result"
)

// percentileHeads are the columns of the latency table; bonnie++ shows only
// the maximum, which one writeback stall can dominate.
var percentileHeads = []string{"min", "mean", "p50", "p90", "p99", "p99.9", "max"}

// WritePercentiles prints one line per test that ran with its latency
// distribution. It is clyde's addition after the
// bonnie++ tables (clyde fs --percentiles); per-char rows are per chunk of
// one-byte calls, as bonnie++ measures them.
func WritePercentiles(w io.Writer, run result.FSRun) error {
	if _, err := fmt.Fprintf(w, "%-12s %9s", "Latency", "ops"); err != nil {
		return err
	}
	for _, h := range percentileHeads {
		fmt.Fprintf(w, " %9s", h)
	}
	fmt.Fprintln(w)
	for _, tr := range run.Tests {
		if !tr.Ran || tr.Latency.Count == 0 {
			continue
		}
		l := tr.Latency
		fmt.Fprintf(w, "%-12s %9d", tr.Test.Name(), l.Count)
		for _, v := range []int64{l.MinNs, int64(l.MeanNs), l.P50Ns, l.P90Ns, l.P99Ns, l.P999Ns, l.MaxNs} {
			fmt.Fprintf(w, " %9s", formatDuration(v))
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return nil
}

// formatDuration keeps three significant figures from nanoseconds to
// seconds; unlike bonnie++'s truncating units it shows sub-microsecond
// operations, which tmpfs and page-cache hits are.
func formatDuration(ns int64) string {
	switch {
	case ns < 1_000:
		return fmt.Sprintf("%dns", ns)
	case ns < 1_000_000:
		return trimUnit(float64(ns)/1e3, "us")
	case ns < 1_000_000_000:
		return trimUnit(float64(ns)/1e6, "ms")
	default:
		return trimUnit(float64(ns)/1e9, "s")
	}
}

func trimUnit(v float64, unit string) string {
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f%s", v, unit)
	case v < 100:
		return fmt.Sprintf("%.1f%s", v, unit)
	}
	return fmt.Sprintf("%.0f%s", v, unit)
}
