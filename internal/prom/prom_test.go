package prom

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/clydebench/clyde/result"
)

// TestEncodeIsWriteToTextfile checks Encode writes exactly what
// client_golang's WriteToTextfile puts in its file, the form node_exporter
// has always read from clyde.
func TestEncodeIsWriteToTextfile(t *testing.T) {
	start := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	fs := &result.FS{Provenance: result.Provenance{StartTime: start}, Config: result.FSConfig{Dir: "/srv/data"}}
	run := result.FSRun{Iteration: 1}
	run.Tests[result.SeqCreate] = result.FSTestResult{Test: result.SeqCreate, Ran: true, RatePerSec: 1800.5,
		RateUnit: "files/s", CPUKnown: true, CPUPercent: 42, Latency: result.LatencySummary{MaxNs: 2_500_000}}
	fs.Runs = []result.FSRun{run}
	block := &result.Block{Provenance: result.Provenance{StartTime: start}, Target: result.BlockTarget{Path: "/dev/sdx"},
		Jobs: []result.BlockJob{{JobName: "randread", Read: result.BlockDir{TotalIOs: 10, IOPS: 1234.5, BWBytes: 5056512}}}}
	for name, reg := range map[string]*prometheus.Registry{"fs": FSRegistry("box", fs), "block": BlockRegistry("box", block)} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "clyde.prom")
			if err := prometheus.WriteToTextfile(path, reg); err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(path)
			var got bytes.Buffer
			if err := Encode(&got, reg); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) || got.Len() == 0 {
				t.Fatalf("Encode wrote\n%s\nWriteToTextfile wrote\n%s", got.String(), want)
			}
		})
	}
}
