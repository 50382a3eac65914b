package blockbench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

func distSum(d result.Dist) float64 {
	var s float64
	for _, b := range d {
		s += b.Value
	}
	return s
}

// TestFioJobFields runs each engine for real and checks the figures only
// fio's readers look at: the depth distributions say what ran, the
// latency buckets cover every I/O, fio's 500 ms samples are there.
func TestFioJobFields(t *testing.T) {
	for _, tc := range []struct {
		engine Engine
		depth  int
		level  string // where the depth distribution must peak
	}{{EnginePsync, 1, "1"}, {EngineIOUring, 8, "8"}} {
		t.Run(string(tc.engine), func(t *testing.T) {
			if tc.engine == EngineIOUring && uringAvailable() != nil {
				t.Skip("io_uring not available here")
			}
			j := NewJob(filepath.Join(t.TempDir(), "f"))
			j.RW, j.Size, j.IOEngine, j.IODepth, j.Runtime = RandRW, 4<<20, tc.engine, tc.depth, 600*time.Millisecond
			j.CommandLine = []string{"clyde"}
			res, err := Run(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			job := res.Jobs[0]
			if d := distSum(job.IODepthLevel); d < 99 || d > 101 {
				t.Errorf("iodepth_level sums to %.2f%%: %v", d, job.IODepthLevel)
			}
			best, bestV := "", -1.0
			for _, b := range job.IODepthLevel {
				if b.Value > bestV {
					best, bestV = b.Key, b.Value
				}
			}
			if tc.engine == EnginePsync && best != tc.level {
				t.Errorf("iodepth_level peaks at %s, want %s: %v", best, tc.level, job.IODepthLevel)
			}
			if v, _ := job.IODepthLevel.At(">=64"); v != 0 {
				t.Errorf("iodepth_level >=64 is %v at depth %d", v, tc.depth)
			}
			if v, _ := job.IODepthSubmit.At("4"); v != 100 {
				t.Errorf("iodepth_submit %v: clyde submits one I/O per call", job.IODepthSubmit)
			}
			all := distSum(job.LatencyNs) + distSum(job.LatencyUs) + distSum(job.LatencyMs)
			if all < 99 || all > 101 {
				t.Errorf("latency_ns/us/ms sum to %.2f%%", all)
			}
			for _, d := range []result.BlockDir{job.Read, job.Write} {
				// 600 ms: the first 500 ms window moved data; a stall can
				// make the closing one long enough to count too (which
				// windows count is TestFioSampleWindows's, on a fixed clock).
				if d.IOPSSamples < 1 || d.IOPSSamples > 2 || d.BWSamples != d.IOPSSamples || d.IOPSMin > d.IOPSMax || d.BWAgg <= 0 || d.BWAgg > 100 {
					t.Errorf("samples %d/%d, iops %d..%d, bw_agg %.1f", d.IOPSSamples, d.BWSamples, d.IOPSMin, d.IOPSMax, d.BWAgg)
				}
				if len(d.Clat.Percentile) != 17 || len(d.Lat.Percentile) != 0 || len(d.Slat.Percentile) != 0 {
					t.Errorf("percentiles under clat %d, lat %d, slat %d; fio's defaults are 17, 0, 0",
						len(d.Clat.Percentile), len(d.Lat.Percentile), len(d.Slat.Percentile))
				}
			}
			if tc.engine == EngineIOUring && job.Read.Slat.N == 0 {
				t.Error("io_uring has a submission stage, and slat_ns is empty")
			}
			if job.Options["filename"] != j.Filename || job.Options["bs"] != "4k" || job.Options["size"] != "4m" {
				t.Errorf("job options %v", job.Options)
			}
			if !strings.HasPrefix(res.FioVersion, "clyde-") || !strings.Contains(res.FioVersion, "fio-3.33") || res.Time == "" {
				t.Errorf("fio version %q, time %q", res.FioVersion, res.Time)
			}
		})
	}
}

// TestFioSampleWindows checks fio's sample rule on marks taken at fixed
// times: one sample per window that moved data, a closing window shorter
// than half of markEvery left out, the workers' samples summed.
func TestFioSampleWindows(t *testing.T) {
	const ms = int64(time.Millisecond)
	at := func(t int64, reads int64) mark {
		return mark{atNs: t * ms, ios: [2]int64{reads}, bytes: [2]int64{reads * 4096}}
	}
	cases := []struct {
		name     string
		marks    [][]mark // per worker
		samples  int
		min, max int64 // IOPS
	}{
		{"one window, a 100 ms tail left out", [][]mark{{at(0, 0), at(500, 500), at(600, 600)}}, 1, 1000, 1000},
		{"a 250 ms tail counts", [][]mark{{at(0, 0), at(500, 500), at(750, 1000)}}, 2, 1000, 2000},
		{"a 249 ms tail does not", [][]mark{{at(0, 0), at(500, 500), at(749, 1000)}}, 1, 1000, 1000},
		{"a window without data is no sample", [][]mark{{at(0, 0), at(500, 0), at(1000, 250)}}, 1, 500, 500},
		{"a late tick makes one long window", [][]mark{{at(0, 0), at(800, 800)}}, 1, 1000, 1000},
		{"two workers summed", [][]mark{{at(0, 0), at(500, 500)}, {at(0, 0), at(500, 250)}}, 2, 1500, 1500}, // min+min, max+max
		{"never measured", [][]mark{{at(0, 0)}}, 0, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ws []*worker
			for _, m := range tc.marks {
				ws = append(ws, &worker{workerStats: workerStats{marks: m}})
			}
			var d result.BlockDir
			fioSampleStats(&d, ws, dirRead)
			if d.IOPSSamples != tc.samples || d.BWSamples != tc.samples || d.IOPSMin != tc.min || d.IOPSMax != tc.max {
				t.Errorf("samples %d/%d, iops %d..%d; want %d, %d..%d", d.IOPSSamples, d.BWSamples, d.IOPSMin, d.IOPSMax, tc.samples, tc.min, tc.max)
			}
		})
	}
}
