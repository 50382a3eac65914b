package compare

import (
	"fmt"
	"strings"
)

// Regression is one column that fell against the recent runs.
type Regression struct {
	Key    string
	Unit   string
	Now    float64
	Median float64
	// DropPct is how far Now is below Median, in percent of Median.
	DropPct float64
}

// Regressions compares cur with the median of prev, column by column, and
// returns the rate columns (higher is better) that fell by more than pct
// percent. Latency columns are left out: bonnie++'s is a single worst
// operation, too noisy to alarm on.
func Regressions(cur *Run, prev []*Run, pct float64) []Regression {
	history := map[string][]float64{}
	for _, p := range prev {
		for _, f := range p.Figures() {
			if f.State == Known && len(f.Values) > 0 {
				history[f.Key] = append(history[f.Key], mean(f.Values))
			}
		}
	}
	var out []Regression
	for _, f := range cur.Figures() {
		past := history[f.Key]
		if !f.HigherIsBetter || f.State != Known || len(f.Values) == 0 || len(past) == 0 {
			continue
		}
		now, med := mean(f.Values), median(past)
		if med <= 0 {
			continue
		}
		if drop := (med - now) / med * 100; drop > pct {
			out = append(out, Regression{Key: f.Key, Unit: f.Unit, Now: now, Median: med, DropPct: drop})
		}
	}
	return out
}

// RegressionSummary is the one line --check-regression prints.
func RegressionSummary(rs []Regression, runs int) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		unit, scale := displayUnit(Row{Unit: r.Unit, Cells: []Cell{{State: Known, Value: max(r.Now, r.Median)}}})
		parts[i] = fmt.Sprintf("%s %s %s is %.1f%% below the median %s", r.Key, formatNumber(r.Now*scale), unit,
			r.DropPct, formatNumber(r.Median*scale))
	}
	return fmt.Sprintf("%s (median of the last %d comparable runs)", strings.Join(parts, "; "), runs)
}
