package compare

import (
	"fmt"
	"math"
	"strings"
)

// MinBaseline is how many earlier comparable runs a column needs before the
// regression check may alarm on it: with one or two, a single noisy run
// would be the whole baseline.
const MinBaseline = 3

// madSigma makes the median absolute deviation an estimate of the standard
// deviation for normally distributed noise; madFactor is how many of those
// a drop must exceed, so that a column that is noisy from run to run does
// not alarm on its ordinary spread.
const (
	madSigma  = 1.4826
	madFactor = 3
)

// Regression is one column that fell against the baseline.
type Regression struct {
	Key  string
	Unit string
	Now  float64
	// Median and MAD (median absolute deviation) are the baseline's.
	Median float64
	MAD    float64
	// DropPct is how far Now is below Median, in percent of Median.
	DropPct float64
	// Short marks a Now measured under 0.5 s: reported, never alarmed on.
	Short bool
}

// Check is what the regression check found for one run.
type Check struct {
	// Baseline is the earlier runs it compared with, newest first.
	Baseline []*Run
	// Columns counts the run's rate columns with a figure; Checked those
	// it could judge: a figure measured over 0.5 s or more, and at least
	// MinBaseline such figures among the baseline's runs.
	Columns, Checked int
	// Regressions are the checked columns that fell by more than the
	// threshold and by more than the baseline's own spread allows.
	Regressions []Regression
	// LowConfidence are columns whose figure ran under 0.5 s and that
	// would otherwise have been regressions: reported, not alarmed on.
	LowConfidence []Regression
	// ThinBaseline names the columns with too few baseline figures.
	ThinBaseline []string
	// NeverChecked names the columns of ThinBaseline that ran under 0.5 s
	// now and in enough of the baseline's runs that the check will never
	// judge them at these sizes: a column a cron user believes watched.
	NeverChecked []string
}

// CheckRegression compares cur with baseline (earlier comparable runs,
// newest first), column by column, for the rate columns (higher is
// better). A column regressed when its figure is more than pct percent
// below the baseline's median and also more than madFactor estimated
// standard deviations (from the median absolute deviation) below it.
// Latency columns are left out: bonnie++'s is a single worst operation,
// too noisy to alarm on. Figures under 0.5 s (Figure.Short) count in
// neither the current run nor the baseline.
func CheckRegression(cur *Run, baseline []*Run, pct float64) Check {
	ck := Check{Baseline: baseline}
	history := map[string][]float64{}
	shortRuns := map[string]int{} // baseline runs whose figure ran under 0.5 s
	for _, p := range baseline {
		for _, f := range p.Figures() {
			switch {
			case f.State != Known || len(f.Values) == 0:
			case f.Short:
				shortRuns[f.Key]++
			default:
				history[f.Key] = append(history[f.Key], mean(f.Values))
			}
		}
	}
	for _, f := range cur.Figures() {
		if !f.HigherIsBetter || f.State != Known || len(f.Values) == 0 {
			continue
		}
		ck.Columns++
		past := history[f.Key]
		if len(past) < MinBaseline {
			ck.ThinBaseline = append(ck.ThinBaseline, f.Key)
			if f.Short && shortRuns[f.Key] >= MinBaseline {
				ck.NeverChecked = append(ck.NeverChecked, f.Key)
			}
			continue
		}
		now, med := mean(f.Values), median(past)
		if med <= 0 {
			ck.ThinBaseline = append(ck.ThinBaseline, f.Key)
			continue
		}
		mad := medianAbsDev(past, med)
		r := Regression{Key: f.Key, Unit: f.Unit, Now: now, Median: med, MAD: mad, DropPct: (med - now) / med * 100, Short: f.Short}
		fell := r.DropPct > pct && med-now > madFactor*madSigma*mad
		if f.Short {
			if fell {
				ck.LowConfidence = append(ck.LowConfidence, r)
			}
			continue
		}
		ck.Checked++
		if fell {
			ck.Regressions = append(ck.Regressions, r)
		}
	}
	return ck
}

func medianAbsDev(vs []float64, med float64) float64 {
	d := make([]float64, len(vs))
	for i, v := range vs {
		d[i] = math.Abs(v - med)
	}
	return median(d)
}

// Summary is the one line the check prints: the regressions (or that
// there were none), what was not alarmed on, how many columns it could
// check, and the baseline it compared with.
func (c Check) Summary() string {
	var parts []string
	for _, r := range c.Regressions {
		parts = append(parts, r.text())
	}
	if len(c.Regressions) == 0 {
		parts = append(parts, "no column fell")
	}
	for _, r := range c.LowConfidence {
		parts = append(parts, r.text()+" but ran under 0.5 s (low confidence, not alarmed on)")
	}
	s := strings.Join(parts, "; ")
	s += fmt.Sprintf("; %d of %d columns checked", c.Checked, c.Columns)
	if n := len(c.ThinBaseline); n > 0 {
		s += fmt.Sprintf(" (%d with fewer than %d figures of 0.5 s or more in the baseline)", n, MinBaseline)
	}
	return s + " against " + c.BaselineText()
}

func (r Regression) text() string {
	unit, scale := DisplayUnit(r.Unit, []float64{r.Now, r.Median})
	mark := ""
	if r.Short {
		mark = ShortMark
	}
	s := fmt.Sprintf("%s %s%s %s is %.1f%% below the median %s", r.Key, formatNumber(r.Now*scale), mark, unit,
		r.DropPct, formatNumber(r.Median*scale))
	if r.MAD > 0 {
		s += fmt.Sprintf(" (MAD %s)", formatNumber(r.MAD*scale))
	}
	return s
}

// BaselineText names the baseline: how many runs, and each one's label and
// date, newest first.
func (c Check) BaselineText() string {
	var runs []string
	for _, r := range c.Baseline {
		s := r.Label
		if t := r.Provenance().StartTime; !t.IsZero() {
			s += " " + t.Local().Format("2006-01-02 15:04")
		}
		runs = append(runs, strings.TrimSpace(s))
	}
	noun := "runs"
	if len(runs) == 1 {
		noun = "run"
	}
	return fmt.Sprintf("the median of %d earlier comparable %s (%s)", len(runs), noun, strings.Join(runs, ", "))
}
