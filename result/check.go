package result

// RegressionCheck is what --check-regression found for a run, saved with
// it (in its JSON file and in the history): the one line the check printed
// and the same lists behind it, and every rate column's verdict by the
// rule (docs/results.md, Significance) against the baseline.
type RegressionCheck struct {
	// ThresholdPct is --check-regression's percentage.
	ThresholdPct float64 `json:"threshold_pct"`
	// Baseline names the earlier comparable runs compared with, newest
	// first, as the history numbers them ("#12").
	Baseline []string `json:"baseline"`
	// Regressed is set when a column fell by the rule (exit 3).
	Regressed bool `json:"regressed"`
	// Line is the check's one line, as printed.
	Line string `json:"line"`
	// Fell are the columns that fell by the rule, worst first; the other
	// lists as the line names them: fell more than the threshold within
	// the noise, rose more than it, a baseline too noisy to judge, under
	// 0.5 s now, too few figures, and under 0.5 s in every run so far.
	Fell          []string `json:"fell"`
	WithinNoise   []string `json:"fell_within_noise,omitempty"`
	Rose          []string `json:"rose,omitempty"`
	TooNoisy      []string `json:"too_noisy,omitempty"`
	LowConfidence []string `json:"low_confidence,omitempty"`
	NotJudged     []string `json:"not_judged,omitempty"`
	NeverChecked  []string `json:"never_checked,omitempty"`
	// FellCount counts the columns more than the threshold below the
	// baseline's mean, whatever the rule says of them, of Columns.
	FellCount int             `json:"fell_count"`
	Columns   []CheckedColumn `json:"columns"`
	// Rule is where the rule is written down.
	Rule string `json:"rule"`
}

// CheckedColumn is one rate column against the baseline.
type CheckedColumn struct {
	Column string `json:"column"`
	Unit   string `json:"unit"`
	// Mean is the run's figure (the mean of its repeats), BaselineMean
	// the mean of every baseline figure; N and BaselineN count them.
	Mean         float64 `json:"mean"`
	BaselineMean float64 `json:"baseline_mean,omitempty"`
	N            int     `json:"n"`
	BaselineN    int     `json:"baseline_n"`
	// ChangePct is the run against the baseline's mean; PValue the
	// rule's test (absent when it could not test).
	ChangePct *float64 `json:"change_pct,omitempty"`
	PValue    *float64 `json:"p_value,omitempty"`
	// Verdict is the rule's: "differs" (p < 0.05), "within_noise" or
	// "cannot_tell"; Judgement the check's: "fell", "fell_within_noise",
	// "rose", "too_noisy", "not_judged", "held".
	Verdict   string `json:"verdict"`
	Judgement string `json:"judgement"`
	// Short marks a figure measured under 0.5 s now: never alarmed on.
	Short bool `json:"short,omitempty"`
}
