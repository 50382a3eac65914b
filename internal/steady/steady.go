// Package steady decides when a per-second rate series has settled, by two
// published rules, and sums up how far it fell on the way:
//
//   - SNIA's Solid State Storage Performance Test Specification (PTS,
//     "Steady State" definition): the rate is averaged per round, and steady
//     state is the first measurement window of 5 rounds in which the range of
//     the round values (max - min, the data excursion) is within 20 % of their
//     average and the best-fit line's change across the window (|slope| x
//     (rounds - 1), the slope excursion) is within 10 % of it.
//   - fio's ss= criteria (HOWTO "Steady state", steadystate.c): over a rolling
//     window of ss_dur one-second samples, after ss_ramp, "iops:L" or "bw:L"
//     wants the largest deviation from the window's mean below L, and
//     "iops_slope:L" or "bw_slope:L" the least-squares slope (per sample)
//     below L; a trailing % makes L a percentage of the window's mean.
//
// Everything here is arithmetic on []float64: no clock, no I/O, so it is
// tested on synthetic series.
package steady

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SNIA's PTS defaults.
const (
	SNIAWindow        = 5
	SNIADataLimitPct  = 20.0
	SNIASlopeLimitPct = 10.0
)

// Fit is the least-squares line y = Intercept + Slope*x over x = 0, 1, ...
type Fit struct {
	Slope, Intercept float64
}

// LinearFit fits ys at x = 0..len(ys)-1; fewer than two points have no slope.
func LinearFit(ys []float64) Fit {
	n := float64(len(ys))
	if len(ys) < 2 {
		if len(ys) == 1 {
			return Fit{Intercept: ys[0]}
		}
		return Fit{}
	}
	var sx, sy, sxx, sxy float64
	for i, y := range ys {
		x := float64(i)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	slope := (sxy - sx*sy/n) / (sxx - sx*sx/n)
	return Fit{Slope: slope, Intercept: (sy - slope*sx) / n}
}

// Mean is the arithmetic mean; 0 for no values.
func Mean(ys []float64) float64 {
	if len(ys) == 0 {
		return 0
	}
	var s float64
	for _, y := range ys {
		s += y
	}
	return s / float64(len(ys))
}

// Rounds averages values in consecutive rounds of size samples; a last
// partial round is left out, as the PTS counts whole rounds only.
func Rounds(values []float64, size int) []float64 {
	if size < 1 {
		return nil
	}
	var out []float64
	for i := 0; i+size <= len(values); i += size {
		out = append(out, Mean(values[i:i+size]))
	}
	return out
}

// SNIAResult is the PTS test on a series of round values.
type SNIAResult struct {
	// Attained is true when some window met both limits; Start is the
	// first round of the first such window. When none did, the figures are
	// those of the last window (the closest the run came), Start its first
	// round, or -1 when there were fewer rounds than the window.
	Attained bool
	Start    int
	Window   int
	Average  float64
	// DataExcursionPct is (max - min) of the window's rounds, in percent of
	// their average; SlopeExcursionPct is |slope| x (window - 1) of the
	// best-fit line, likewise.
	DataExcursionPct  float64
	SlopeExcursionPct float64
	Fit               Fit
}

// SNIA finds the first window of window rounds whose data excursion is
// within dataPct and slope excursion within slopePct of the window average.
func SNIA(rounds []float64, window int, dataPct, slopePct float64) SNIAResult {
	res := SNIAResult{Start: -1, Window: window}
	if window < 2 {
		return res
	}
	for s := 0; s+window <= len(rounds); s++ {
		w := rounds[s : s+window]
		r := sniaWindow(w)
		r.Start, r.Window = s, window
		res = r
		if r.Average > 0 && r.DataExcursionPct <= dataPct && r.SlopeExcursionPct <= slopePct {
			res.Attained = true
			return res
		}
	}
	return res
}

func sniaWindow(w []float64) SNIAResult {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range w {
		lo, hi = min(lo, y), max(hi, y)
	}
	r := SNIAResult{Average: Mean(w), Fit: LinearFit(w)}
	if r.Average > 0 {
		r.DataExcursionPct = (hi - lo) / r.Average * 100
		r.SlopeExcursionPct = math.Abs(r.Fit.Slope) * float64(len(w)-1) / r.Average * 100
	}
	return r
}

// Criterion is one fio ss= criterion.
type Criterion struct {
	// Metric is "iops" or "bw".
	Metric string
	// Slope selects the slope test (iops_slope, bw_slope) over the
	// deviation test (iops, bw).
	Slope bool
	// Limit is the bound; Percent makes it a percentage of the window's mean.
	Limit   float64
	Percent bool
}

// ParseCriterion reads fio's ss= syntax: iops|iops_slope|bw|bw_slope, a
// colon, a limit, and an optional %: "iops_slope:0.3%", "iops:20%", "bw:1000".
// fio's lat criteria are not accepted: clyde's series has rates only.
func ParseCriterion(s string) (Criterion, error) {
	name, limit, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return Criterion{}, fmt.Errorf("%q has no limit; give CRITERION:LIMIT such as iops_slope:0.3%% or iops:20%%", s)
	}
	var c Criterion
	switch name {
	case "iops", "bw":
		c.Metric = name
	case "iops_slope", "bw_slope":
		c.Metric, c.Slope = strings.TrimSuffix(name, "_slope"), true
	default:
		return Criterion{}, fmt.Errorf("unknown criterion %q; accepted: iops, iops_slope, bw, bw_slope", name)
	}
	if c.Percent = strings.HasSuffix(limit, "%"); c.Percent {
		limit = strings.TrimSuffix(limit, "%")
	}
	v, err := strconv.ParseFloat(limit, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return Criterion{}, fmt.Errorf("limit %q is not a number above 0", limit)
	}
	c.Limit = v
	return c, nil
}

// String is the criterion in fio's form, as fio's JSON "ss" field prints it.
func (c Criterion) String() string {
	name := c.Metric
	if c.Slope {
		name += "_slope"
	}
	pct := ""
	if c.Percent {
		pct = "%"
	}
	return name + ":" + strconv.FormatFloat(c.Limit, 'f', 6, 64) + pct
}

// FioResult is a fio criterion applied to a series.
type FioResult struct {
	// Attained is true when a window met the criterion; Start is that
	// window's first sample. When none did, the figures are the last
	// window's, or Start is -1 when the series was shorter than the window.
	Attained bool
	Start    int
	// Value is what was compared with the limit (the deviation or the
	// slope, in percent of the mean for a % limit), MaxDeviation and Slope
	// the raw figures, Mean the window's mean.
	Value        float64
	MaxDeviation float64
	Slope        float64
	Mean         float64
}

// ErrNoWindow is returned for a window shorter than two samples.
var ErrNoWindow = errors.New("the window needs at least two samples")

// Fio slides a window of dur samples over values[ramp:] and stops at the
// first one that meets c, as fio's steadystate_check does each second: the
// comparison is strict (value < limit), the slope is per sample, and the
// deviation the largest absolute difference from the window's mean.
func Fio(values []float64, c Criterion, dur, ramp int) (FioResult, error) {
	res := FioResult{Start: -1}
	if dur < 2 {
		return res, ErrNoWindow
	}
	ramp = max(ramp, 0)
	for s := ramp; s+dur <= len(values); s++ {
		w := values[s : s+dur]
		r := FioResult{Start: s, Mean: Mean(w), Slope: LinearFit(w).Slope}
		for _, y := range w {
			r.MaxDeviation = max(r.MaxDeviation, math.Abs(y-r.Mean))
		}
		r.Value = r.MaxDeviation
		if c.Slope {
			r.Value = math.Abs(r.Slope)
		}
		if c.Percent {
			if r.Mean == 0 {
				res = r
				continue
			}
			r.Value = r.Value / r.Mean * 100
		}
		res = r
		if r.Value < c.Limit {
			res.Attained = true
			return res, nil
		}
	}
	return res, nil
}

// Summary is how a sustained run behaved, from its per-second rates.
type Summary struct {
	// FirstMinute is the mean of the first minute (or of the whole run when
	// it was shorter; FirstMinuteSamples says how many seconds).
	FirstMinute        float64
	FirstMinuteSamples int
	// WorstMinute is the lowest mean over any minute-long window, starting
	// at WorstMinuteStart; for a run shorter than a minute, the whole run.
	WorstMinute      float64
	WorstMinuteStart int
	// Settled is the mean of the settled window [SettleStart, SettleStart+
	// SettleLen) when one was found (Known), else of the last fifth of the
	// run. DropPct is how far Settled is below FirstMinute, in percent of it.
	Settled     float64
	Known       bool
	SettleStart int
	SettleLen   int
	DropPct     float64
}

// Summarize sums up values (one per second) with minute samples to a
// minute; settleStart and settleLen give the settled window found by SNIA or
// fio, settleLen 0 when none was.
func Summarize(values []float64, minute, settleStart, settleLen int) Summary {
	var s Summary
	if len(values) == 0 || minute < 1 {
		return s
	}
	first := min(minute, len(values))
	s.FirstMinute, s.FirstMinuteSamples = Mean(values[:first]), first
	win := min(minute, len(values))
	s.WorstMinute = math.Inf(1)
	var sum float64
	for i, v := range values {
		sum += v
		if i >= win {
			sum -= values[i-win]
		}
		if i >= win-1 && sum/float64(win) < s.WorstMinute {
			s.WorstMinute, s.WorstMinuteStart = sum/float64(win), i-win+1
		}
	}
	if settleLen > 0 && settleStart >= 0 && settleStart+settleLen <= len(values) {
		s.Known, s.SettleStart, s.SettleLen = true, settleStart, settleLen
	} else {
		s.SettleLen = max(1, len(values)/5)
		s.SettleStart = len(values) - s.SettleLen
	}
	s.Settled = Mean(values[s.SettleStart : s.SettleStart+s.SettleLen])
	if s.FirstMinute > 0 {
		s.DropPct = (s.FirstMinute - s.Settled) / s.FirstMinute * 100
	}
	return s
}
