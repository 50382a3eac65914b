package blockbench_test

import (
	"testing"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/fiojob"
)

// BenchmarkComplete is the I/O loop's cost per completion without the
// engine: no log (the record hook's nil check only), fio's per-I/O latency
// log and its histogram log, each through the hook.
func BenchmarkComplete(b *testing.B) {
	for _, c := range []struct {
		name string
		spec blockbench.RecordSpec
	}{{"off", nil}, {"lat_log", fiojob.LogSpec{Lat: "l"}}, {"hist_log", fiojob.LogSpec{Hist: "h", HistMsec: 1000}}} {
		b.Run(c.name, func(b *testing.B) { blockbench.CompleteLoop(b, c.spec) })
	}
}
