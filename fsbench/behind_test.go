package fsbench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

func TestBehindLine(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name        string
		elapsed     time.Duration
		est         time.Duration
		done, total int64
		left        time.Duration
		behind      bool
		want        []string
	}{
		// 12 s for a tenth of the work: 120 s in all, 120 times 1 s.
		{"projected far past", 12 * s, s, 100, 1000, -1, true, []string{"has run 12s", "needs about 2m0s in all", "120 times", "--max-time bounds the run"}},
		// Far behind by the projection, but not yet BehindAfter.
		{"too early to tell", 5 * s, 100 * time.Millisecond, 1, 1000, -1, false, nil},
		// Twice the estimate is a busy machine, not news.
		{"twice the estimate", 12 * s, 10 * s, 500, 1000, -1, false, nil},
		// Exactly BehindFactor times: said.
		{"at the factor", 10 * s, 5 * s, 500, 1000, -1, true, []string{"4 times"}},
		// Nothing counted yet: the time so far alone.
		{"nothing done yet", 41 * s, 10 * s, 0, 1000, 30 * s, true, []string{"has run 41s, 4 times", "stops it in 30s"}},
		{"done past the total", 41 * s, 5 * s, 2000, 1000, -1, true, []string{"has run 41s, 8 times"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line, ok := behindLine(result.PutChar, tc.elapsed, tc.est, "its estimate", tc.done, tc.total, 8192, tc.left)
			if ok != tc.behind {
				t.Fatalf("behind = %v (%q), want %v", ok, line, tc.behind)
			}
			for _, w := range append(tc.want, "per-char write is far behind") {
				if ok && !strings.Contains(line, w) {
					t.Errorf("line %q does not say %q", line, w)
				}
			}
		})
	}
}

func TestOpsRate(t *testing.T) {
	// 2048 one-byte calls, 10 chunks of 8 KiB, 30 seeks, 40 files in 2 s.
	for _, tc := range []struct {
		test result.FSTest
		done int64
		want float64
	}{
		{result.PutChar, 2048, 1}, {result.PutBlock, 10, 40}, {result.Seeks, 30, 15}, {result.SeqCreate, 40, 20},
	} {
		if got := opsRate(tc.test, tc.done, 2*time.Second, 8192); got != tc.want {
			t.Errorf("%s: rate %v, want %v", tc.test.Name(), got, tc.want)
		}
	}
}

// TestBehindSaysOnce runs a suite whose --auto record promises rates no
// storage has: every phase is far behind its estimate, and the run says so
// once, in a line and in the first such phase's notes.
func TestBehindSaysOnce(t *testing.T) {
	defer func(every, after time.Duration) { behindEvery, behindAfter = every, after }(behindEvery, behindAfter)
	behindEvery, behindAfter = 10*time.Millisecond, 50*time.Millisecond
	o := smallOptions(t.TempDir())
	o.SizeMiB, o.ByteIOMiB, o.FilesK = 1, 1, 0
	o.Auto = &result.FSAuto{CalibrationRates: map[string]float64{}}
	for t := result.FSTest(0); t < result.FSTestCount; t++ {
		o.Auto.CalibrationRates[t.Name()] = 1e9
	}
	var w bytes.Buffer
	o.Behind = &Behind{W: &w}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(w.String(), "\n"); n != 1 || !strings.HasPrefix(w.String(), "clyde: warning: per-char write is far behind") {
		t.Fatalf("%d lines, want one about per-char write:\n%s", n, w.String())
	}
	noted := 0
	for _, tr := range res.Runs[0].Tests {
		for _, n := range tr.Notes {
			if strings.Contains(n, "far behind") {
				noted++
				if tr.Test != result.PutChar {
					t.Errorf("%s noted %q", tr.Name, n)
				}
			}
		}
	}
	if noted != 1 {
		t.Errorf("%d tests noted falling behind, want 1", noted)
	}
}

// TestBehindNeedsAnEstimate: without --auto nothing says how long a phase
// should take, so nothing is said.
func TestBehindNeedsAnEstimate(t *testing.T) {
	defer func(every, after time.Duration) { behindEvery, behindAfter = every, after }(behindEvery, behindAfter)
	behindEvery, behindAfter = 10*time.Millisecond, 50*time.Millisecond
	o := smallOptions(t.TempDir())
	o.SizeMiB, o.ByteIOMiB, o.FilesK = 1, 1, 0
	var w bytes.Buffer
	o.Behind = &Behind{W: &w}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if w.Len() != 0 {
		t.Fatalf("said %q with no estimate", w.String())
	}
}

// TestBehindEstimates: the phase's own estimate from its --auto rate, and
// the calibration's allowance while calibrating.
func TestBehindEstimates(t *testing.T) {
	o := smallOptions(t.TempDir())
	o.ByteIOMiB = 2
	o.Auto = &result.FSAuto{CalibrationRates: map[string]float64{"putc": 1024, "seq_create": 512}, ReusedFrom: "#7"}
	r := &runner{opts: o}
	if d, from := r.estimate(result.PutChar); d != 2*time.Second || !strings.Contains(from, "(at #7's calibrated rate, 1.0 MiB/s)") {
		t.Errorf("putc estimate %v %q, want 2s from #7's 1 MiB/s", d, from)
	}
	if d, _ := r.estimate(result.SeqCreate); d != 2*time.Second { // 1024 files at 512/s
		t.Errorf("seq_create estimate %v, want 2s", d)
	}
	if d, _ := r.estimate(result.GetBlock); d != 0 {
		t.Errorf("getc has no rate, but estimate %v", d)
	}
	r.opts.calibrating = 5 * time.Second
	if d, from := r.estimate(result.GetBlock); d != 5*time.Second || !strings.Contains(from, "calibration") {
		t.Errorf("calibrating: estimate %v %q, want the calibration's 5s", d, from)
	}
}

// TestBehindWhileCalibrating: --auto's calibration runs are watched too,
// against the quarter of the budget the whole calibration may take (here
// 10 ms, which a megabyte of one-byte calls outlasts anywhere).
func TestBehindWhileCalibrating(t *testing.T) {
	defer func(every, after time.Duration) { behindEvery, behindAfter = every, after }(behindEvery, behindAfter)
	behindEvery, behindAfter = 10*time.Millisecond, 50*time.Millisecond
	o := smallOptions(t.TempDir())
	o.ByteIOMiB = 1
	var w bytes.Buffer
	o.Behind = &Behind{W: &w}
	if _, err := Auto(context.Background(), o, 40*time.Millisecond, Choose{Size: true, PerChar: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "far behind") || !strings.Contains(w.String(), "the 10ms the whole of --auto's calibration may take") {
		t.Fatalf("calibration said %q; want the far-behind line against its allowance", w.String())
	}
}
