package bonnie

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

func TestWritePercentiles(t *testing.T) {
	var run result.FSRun
	for i := range run.Tests {
		run.Tests[i] = notRun(result.FSTest(i))
	}
	run.Tests[result.PutBlock] = finished(result.PutBlock, 2048*mib, 3*sec, sec, 9*ms)
	run.Tests[result.PutBlock].Latency = latency.Summary{Count: 262144, MinNs: 1500, MeanNs: 11000.7,
		P50Ns: 9000, P90Ns: 15000, P99Ns: 150_000, P999Ns: 2_500_000, MaxNs: 250_000_000}
	run.Tests[result.SeqCreate] = finished(result.SeqCreate, 16384, 2*sec, sec, 4*ms)
	run.Tests[result.SeqCreate].Latency = latency.Summary{Count: 16384, MinNs: 400, MeanNs: 120_000,
		P50Ns: 90_000, P90Ns: 200_000, P99Ns: 900_000, P999Ns: 3_000_000, MaxNs: 4 * ms}
	var b strings.Builder
	if err := WritePercentiles(&b, run); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "\n"); n != 3 {
		t.Fatalf("%d lines, want a header and one per test that ran:\n%s", n, out)
	}
	golden(t, "percentiles.txt", out)
}

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		ns   int64
		want string
	}{
		{0, "0ns"}, {400, "400ns"}, {999, "999ns"}, {1000, "1.00us"}, {1234, "1.23us"}, {12345, "12.3us"},
		{123456, "123us"}, {1_500_000, "1.50ms"}, {250_000_000, "250ms"}, {2_500_000_000, "2.50s"}, {142_000_000_000, "142s"},
	} {
		if got := formatDuration(tc.ns); got != tc.want {
			t.Errorf("formatDuration(%d) = %q, want %q", tc.ns, got, tc.want)
		}
	}
}
