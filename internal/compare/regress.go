package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/internal/verdict"
	"github.com/clydebench/clyde/result"
)

// ColumnCheck is the regression check's reading of one rate column: the
// rule's (verdict.Judge) on the run's figures against every figure of the
// baseline's runs.
type ColumnCheck struct {
	Key  string
	Unit string
	// Judgement and Cmp are the rule's; Cmp has the baseline as its
	// reference, so Cmp.ChangePct is the run against the baseline's mean.
	Judgement verdict.Judgement
	Cmp       verdict.Comparison
	// Short marks a figure measured under 0.5 s now: reported, never
	// alarmed on.
	Short bool
	// BaselineRuns counts the baseline's runs that gave the column a
	// figure.
	BaselineRuns int
}

// Check is what the regression check found for one run.
type Check struct {
	// Baseline is the earlier runs it compared with, newest first.
	Baseline []*Run
	// ThresholdPct is --check-regression's percentage.
	ThresholdPct float64
	// Columns are the run's rate columns with a figure, in report order.
	Columns []ColumnCheck
	// Regressions are the columns that fell by the rule (verdict.Fell),
	// worst first. WithinNoise fell more than the threshold but within
	// the noise; Rose rose more than it (a rise can be a cache); TooNoisy
	// have a baseline against which even a fall to zero would be noise;
	// LowConfidence ran under 0.5 s now and fell or rose more than the
	// threshold. Each column is in one list at most.
	Regressions, WithinNoise, Rose, TooNoisy, LowConfidence []ColumnCheck
	// NotJudged names the columns the rule cannot judge: too few figures,
	// now and in the baseline.
	NotJudged []string
	// NeverChecked names the columns that ran under 0.5 s now and in
	// every run of the baseline (or now, in a history's first run): the
	// check will never alarm on them at these sizes, columns a cron user
	// believes watched. The weekly note names them, beside the lists.
	NeverChecked []string
	// Fell counts the columns whose figure is more than the threshold
	// below the baseline's mean, whatever the rule says of it.
	Fell int
}

// CheckRegression reads cur against baseline (earlier comparable runs,
// newest first), column by column, for the rate columns (higher is
// better), by the one rule (internal/verdict): a column regressed when
// the rule calls its figure lower than the baseline's and it fell more
// than pct percent below the baseline's mean. Every repeat of every
// baseline run is one figure of the baseline, so the check of a run
// against one earlier run is clyde compare's of the two. Latency columns
// are left out: bonnie++'s is a single worst operation, too noisy to
// alarm on. A figure under 0.5 s now (Figure.Short) is judged like any
// other but never alarmed on: reported as low confidence.
func CheckRegression(cur *Run, baseline []*Run, pct float64) Check {
	ck := Check{Baseline: baseline, ThresholdPct: pct}
	history := map[string][]float64{}
	runs, shortRuns := map[string]int{}, map[string]int{}
	for _, p := range baseline {
		for _, f := range p.Figures() {
			if f.State == Known && len(f.Values) > 0 {
				history[f.Key] = append(history[f.Key], f.Values...)
				runs[f.Key]++
				if f.Short {
					shortRuns[f.Key]++
				}
			}
		}
	}
	for _, f := range cur.Figures() {
		if !f.HigherIsBetter || f.State != Known || len(f.Values) == 0 {
			continue
		}
		j, c := verdict.Judge(history[f.Key], f.Values, pct)
		col := ColumnCheck{Key: f.Key, Unit: f.Unit, Judgement: j, Cmp: c, Short: f.Short, BaselineRuns: runs[f.Key]}
		ck.Columns = append(ck.Columns, col)
		if -c.ChangePct > pct {
			ck.Fell++
		}
		if f.Short && shortRuns[f.Key] == runs[f.Key] {
			ck.NeverChecked = append(ck.NeverChecked, f.Key)
		}
		switch {
		case f.Short && math.Abs(c.ChangePct) > pct:
			ck.LowConfidence = append(ck.LowConfidence, col)
		case f.Short:
		case j == verdict.Fell:
			ck.Regressions = append(ck.Regressions, col)
		case j == verdict.FellWithinNoise:
			ck.WithinNoise = append(ck.WithinNoise, col)
		case j == verdict.Rose:
			ck.Rose = append(ck.Rose, col)
		case j == verdict.TooNoisy:
			ck.TooNoisy = append(ck.TooNoisy, col)
		case j == verdict.NotJudged:
			ck.NotJudged = append(ck.NotJudged, f.Key)
		}
	}
	worstFirst := func(a, b ColumnCheck) int { return cmp.Compare(a.Cmp.ChangePct, b.Cmp.ChangePct) }
	slices.SortStableFunc(ck.Regressions, worstFirst)
	slices.SortStableFunc(ck.WithinNoise, worstFirst)
	slices.SortStableFunc(ck.TooNoisy, worstFirst)
	slices.SortStableFunc(ck.LowConfidence, worstFirst)
	slices.SortStableFunc(ck.Rose, func(a, b ColumnCheck) int { return -worstFirst(a, b) })
	return ck
}

// Regressed reports whether the check alarms: a column fell by the rule.
func (c Check) Regressed() bool { return len(c.Regressions) > 0 }

// Summary is the one line the check prints: the columns that fell by the
// rule worst first (or that none did), then the other columns that fell
// more than the threshold but within the noise, those that rose more than
// it, those the baseline is too noisy to judge, those under 0.5 s, those
// with too few figures, and how many of the columns fell, against which
// baseline.
func (c Check) Summary() string {
	var parts []string
	for _, r := range c.Regressions {
		parts = append(parts, r.alarmText())
	}
	if len(c.Regressions) == 0 {
		parts = append(parts, "no column fell by the rule")
	}
	pct := strconv.FormatFloat(c.ThresholdPct, 'g', -1, 64) + "%"
	list := func(head string, cols []ColumnCheck) {
		if len(cols) == 0 {
			return
		}
		var s []string
		for _, r := range cols {
			s = append(s, r.Key+" "+r.Cmp.Text())
		}
		parts = append(parts, head+": "+strings.Join(s, ", "))
	}
	list("also down more than "+pct+" but within the noise", c.WithinNoise)
	list("up more than "+pct+" (a rise can be a cache)", c.Rose)
	if len(c.TooNoisy) > 0 {
		var s []string
		for _, r := range c.TooNoisy {
			s = append(s, r.Key+" "+r.Cmp.PctText())
		}
		parts = append(parts, "the baseline is too noisy to judge "+strings.Join(s, ", ")+" (even a fall to zero would be within its noise)")
	}
	list("under 0.5 s now (low confidence, not alarmed on)", c.LowConfidence)
	if len(c.NotJudged) > 0 {
		parts = append(parts, "too few figures to judge "+strings.Join(c.NotJudged, ", "))
	}
	s := strings.Join(parts, "; ")
	s += fmt.Sprintf(": %d of %d columns fell more than %s against %s [the rule: %s]", c.Fell, len(c.Columns), pct,
		c.BaselineText(), verdict.RuleRef)
	return s
}

// alarmText is a regression with its figures: "put_block -68.7% (129 vs
// 412 MiB/s, p=0.002 n=5+1)".
func (r ColumnCheck) alarmText() string {
	unit, scale := DisplayUnit(r.Unit, []float64{r.Cmp.Cand.Mean, r.Cmp.Ref.Mean})
	return fmt.Sprintf("%s %s (%s vs %s %s, %s)", r.Key, r.Cmp.PctText(), formatNumber(r.Cmp.Cand.Mean*scale),
		formatNumber(r.Cmp.Ref.Mean*scale), unit, r.Cmp.Stat())
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
	return fmt.Sprintf("the mean of %d earlier comparable %s (%s)", len(runs), noun, strings.Join(runs, ", "))
}

// judgementName is a judgement as the saved check names it.
func judgementName(j verdict.Judgement) string {
	switch j {
	case verdict.TooNoisy:
		return "too_noisy"
	case verdict.Fell:
		return "fell"
	case verdict.FellWithinNoise:
		return "fell_within_noise"
	case verdict.Rose:
		return "rose"
	case verdict.Held:
		return "held"
	}
	return "not_judged"
}

// Record is the check as a result saves it: its line, the same lists, and
// every column's verdict.
func (c Check) Record() *result.RegressionCheck {
	rc := &result.RegressionCheck{ThresholdPct: c.ThresholdPct, Regressed: c.Regressed(), Line: c.Summary(),
		Fell: keys(c.Regressions), WithinNoise: keys(c.WithinNoise), Rose: keys(c.Rose), TooNoisy: keys(c.TooNoisy),
		LowConfidence: keys(c.LowConfidence), NotJudged: c.NotJudged, NeverChecked: c.NeverChecked,
		FellCount: c.Fell, Baseline: []string{}, Columns: []result.CheckedColumn{}, Rule: verdict.RuleURL}
	if rc.Fell == nil {
		rc.Fell = []string{}
	}
	for _, r := range c.Baseline {
		rc.Baseline = append(rc.Baseline, r.Label)
	}
	for _, col := range c.Columns {
		cc := result.CheckedColumn{Column: col.Key, Unit: col.Unit, Mean: col.Cmp.Cand.Mean, N: col.Cmp.Cand.N,
			BaselineN: col.Cmp.Ref.N, Verdict: verdictName(col.Cmp.Outcome), Judgement: judgementName(col.Judgement), Short: col.Short}
		if col.Cmp.Ref.N > 0 {
			cc.BaselineMean = col.Cmp.Ref.Mean
		}
		if v := col.Cmp.ChangePct; !math.IsNaN(v) {
			cc.ChangePct = &v
		}
		if v := col.Cmp.P; !math.IsNaN(v) {
			cc.PValue = &v
		}
		rc.Columns = append(rc.Columns, cc)
	}
	return rc
}

func keys(cols []ColumnCheck) []string {
	var out []string
	for _, c := range cols {
		out = append(out, c.Key)
	}
	return out
}

// VerdictLine is a saved check's verdicts in one line, for clyde history:
// the columns the rule calls lower and higher than the baseline (with the
// change and the test), how many it calls within the noise, naming those
// among them that fell more than the threshold (marked ~, as the check's
// line marks them: a night that fell everywhere reads so), and how many it
// cannot judge: "lower: put_block -12.3% (p=0.004 n=3+3); higher: seeks
// +4.1% (p=0.03 n=3+3); within the noise: 9 (down more than 20%: putc
// ~-91.0% (p=0.07 n=5+1)); cannot tell: 1". "" for a check with no column.
func VerdictLine(rc *result.RegressionCheck) string {
	var lower, higher, down []string
	same, cannot := 0, 0
	for _, c := range rc.Columns {
		change, stat := "", ""
		if c.ChangePct != nil {
			change = fmt.Sprintf(" %+.1f%%", *c.ChangePct)
		}
		if c.PValue != nil {
			stat = fmt.Sprintf(" (%s n=%d+%d)", verdict.FormatP(*c.PValue), c.BaselineN, c.N)
		}
		text := c.Column + change + stat
		switch {
		case c.Verdict == "differs" && c.Mean < c.BaselineMean:
			lower = append(lower, text)
		case c.Verdict == "differs":
			higher = append(higher, text)
		case c.Verdict == "within_noise":
			same++
			if c.ChangePct != nil && -*c.ChangePct > rc.ThresholdPct {
				down = append(down, c.Column+" ~"+strings.TrimSpace(change)+stat)
			}
		default:
			cannot++
		}
	}
	var parts []string
	if len(lower) > 0 {
		parts = append(parts, "lower: "+strings.Join(lower, ", "))
	}
	if len(higher) > 0 {
		parts = append(parts, "higher: "+strings.Join(higher, ", "))
	}
	if same > 0 {
		p := fmt.Sprintf("within the noise: %d", same)
		if len(down) > 0 {
			p += fmt.Sprintf(" (down more than %s%%: %s)", strconv.FormatFloat(rc.ThresholdPct, 'g', -1, 64), strings.Join(down, ", "))
		}
		parts = append(parts, p)
	}
	if cannot > 0 {
		parts = append(parts, fmt.Sprintf("cannot tell: %d", cannot))
	}
	return strings.Join(parts, "; ")
}
