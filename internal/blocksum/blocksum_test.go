package blocksum

import (
	"math"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// TestDir: a direction's rates are its I/Os and bytes over the elapsed
// time; a runtime of 0 leaves them 0.
func TestDir(t *testing.T) {
	for _, tc := range []struct {
		name            string
		ios, bytes, ns  int64
		iops            float64
		bwBytes, kbytes int64
	}{
		{"one second", 1000, 4096000, 1e9, 1000, 4096000, 4000},
		{"half a second", 10, 10240, 5e8, 20, 20480, 10},
		{"rounded bandwidth", 1, 1, 3e9, 1.0 / 3, 0, 0},
		{"no runtime", 5, 5 << 10, 0, 0, 0, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d result.BlockDir
			Dir(&d, tc.ios, tc.bytes, 2, tc.ns)
			if d.TotalIOs != tc.ios || d.IOBytes != tc.bytes || d.ShortIOs != 2 || d.IOKBytes != tc.kbytes {
				t.Errorf("counts %+v", d)
			}
			if d.RuntimeNs != tc.ns || d.Runtime != tc.ns/1e6 {
				t.Errorf("runtime %d ns %d ms, want %d ns", d.RuntimeNs, d.Runtime, tc.ns)
			}
			if math.Abs(d.IOPS-tc.iops) > 1e-9 || d.BWBytes != tc.bwBytes || d.BW != tc.bwBytes>>10 {
				t.Errorf("IOPS %g BW %d B/s %d KiB/s, want %g %d", d.IOPS, d.BWBytes, d.BW, tc.iops, tc.bwBytes)
			}
		})
	}
}

// marksAt are a worker's marks every half second from startNs, reads
// growing by perWindow[i] in window i (4 KiB each), writes by half as many.
func marksAt(startNs int64, perWindow ...int64) []Mark {
	out := []Mark{{AtNs: startNs}}
	for i, n := range perWindow {
		last := out[len(out)-1]
		m := Mark{AtNs: startNs + int64(i+1)*int64(500*time.Millisecond), IOs: last.IOs, Bytes: last.Bytes}
		m.IOs[0] += n
		m.IOs[1] += n / 2
		m.Bytes[0] += n * 4096
		m.Bytes[1] += n / 2 * 4096
		out = append(out, m)
	}
	return out
}

// TestSeries: the workers' windows add up slot by slot, two windows a
// second, every I/O counted once, from the common start.
func TestSeries(t *testing.T) {
	a := marksAt(1e9, 100, 100, 200, 200, 300, 300)
	b := marksAt(1e9, 10, 10, 20, 20)
	s := Series([][]Mark{a, b}, 0, 2)
	if len(s) != 3 {
		t.Fatalf("%d samples, want 3: %+v", len(s), s)
	}
	for i, want := range []struct{ start, reads, writes int64 }{{1000, 220, 110}, {2000, 440, 220}, {3000, 600, 300}} {
		got := s[i]
		if got.StartMs != want.start || got.ReadIOs != want.reads || got.WriteIOs != want.writes || got.DurationNs != 1e9 {
			t.Errorf("sample %d: %+v, want start %d ms, %d reads %d writes over 1 s", i, got, want.start, want.reads, want.writes)
		}
		if got.ReadBytes != want.reads*4096 || got.IOPS != float64(want.reads+want.writes) || got.BWBytes != (want.reads+want.writes)*4096 {
			t.Errorf("sample %d: bytes %d IOPS %g BW %d", i, got.ReadBytes, got.IOPS, got.BWBytes)
		}
	}
	if Series([][]Mark{{{AtNs: 5}}, nil}, 0, 2) != nil {
		t.Error("workers that never left the ramp give samples")
	}
}

// TestSeriesClosingSliceJoinsTheLastSecond: the few microseconds of I/O
// after a run's last whole second are added to that second, not reported
// as a sample of their own (31 I/Os in 11 us read as 2.8M IOPS on a 170k
// IOPS test); every I/O is still counted once.
func TestSeriesClosingSliceJoinsTheLastSecond(t *testing.T) {
	const perSample = 2
	sec, every := int64(time.Second), int64(500*time.Millisecond)
	var marks []Mark
	var ios int64
	for i := 0; i <= perSample; i++ { // one whole second, 170k IOPS
		marks = append(marks, Mark{AtNs: int64(i) * every, IOs: [2]int64{ios, 0}, Bytes: [2]int64{ios * 4096, 0}})
		ios += 170000 / perSample
	}
	last := marks[len(marks)-1]
	marks = append(marks, Mark{AtNs: sec + 10980, IOs: [2]int64{last.IOs[0] + 31, 0}, Bytes: [2]int64{(last.IOs[0] + 31) * 4096, 0}})
	series := Series([][]Mark{marks}, 0, perSample)
	if len(series) != 1 {
		t.Fatalf("%d samples, want the closing slice merged into one: %+v", len(series), series)
	}
	s := series[0]
	if s.ReadIOs != last.IOs[0]+31 || s.DurationNs != sec+10980 {
		t.Errorf("merged sample %+v: want %d I/Os over %d ns", s, last.IOs[0]+31, sec+10980)
	}
	if s.IOPS > 200000 {
		t.Errorf("IOPS %.0f: the closing slice still spikes the series", s.IOPS)
	}
	// A closing slice of half a second or more is a sample of its own.
	marks[len(marks)-1].AtNs = sec + sec/2
	if n := len(Series([][]Mark{marks}, 0, perSample)); n != 2 {
		t.Errorf("a half-second closing slice: %d samples, want 2", n)
	}
}

// TestTrend: the last tenth's mean IOPS against the first tenth's.
func TestTrend(t *testing.T) {
	samples := func(iops ...float64) []result.BlockSample {
		var s []result.BlockSample
		for _, v := range iops {
			s = append(s, result.BlockSample{IOPS: v})
		}
		return s
	}
	for _, tc := range []struct {
		name        string
		series      []result.BlockSample
		known       bool
		first, last float64
		drop        float64
		wantSamples int
	}{
		{"none", nil, false, 0, 0, 0, 0},
		{"one sample", samples(100), false, 0, 0, 0, 1},
		{"two samples", samples(100, 80), true, 100, 80, 20, 2},
		{"a tenth of twenty", samples(100, 100, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 60, 40), true, 100, 50, 50, 20},
		{"a rise", samples(50, 75), true, 50, 75, -50, 2},
		{"from zero", samples(0, 10), false, 0, 10, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := Trend(tc.series)
			if tr.Samples != tc.wantSamples || tr.Known != tc.known || tr.FirstIOPS != tc.first || tr.LastIOPS != tc.last || tr.DropPct != tc.drop {
				t.Errorf("trend %+v, want known %v first %g last %g drop %g%%", tr, tc.known, tc.first, tc.last, tc.drop)
			}
		})
	}
}
