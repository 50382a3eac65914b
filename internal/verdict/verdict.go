// Package verdict is clyde's one rule for whether two sets of figures
// differ: every output that says "significant", "winner" or "regressed"
// (clyde compare, the HTML page, clyde history, the regression check and the
// Prometheus textfile) asks it, and nothing else decides. The rule, stated
// once in docs/results.md (Significance), is benchstat's with a normal
// assumption (golang.org/x/perf/benchmath.AssumeNormal): each side's centre
// is its mean with a 95 % Student's t confidence interval, and two sides
// differ when a two-sided Welch's t-test rejects equal means at the 5 %
// level. A side of a single figure has no spread of its own and is taken to
// vary as the other side does, which makes Welch's test Student's pooled
// t-test (go-moremath's, the library benchmath rests on): with one figure
// against k, the test of whether it lies outside the k figures' 95 %
// prediction interval. It can tell with three figures in all, two of them
// on one side; one figure a side cannot tell noise from a difference, and
// the rule says so rather than guess.
package verdict

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// Alpha is the test's level: a difference is real when p < Alpha.
// Confidence is the level of every confidence interval shown.
const (
	Alpha      = 0.05
	Confidence = 0.95
)

// RuleURL is where the rule is written down; every output that gives a
// verdict points at it.
const RuleURL = "https://github.com/clydebench/clyde/blob/main/docs/results.md#significance"

// RuleRef is RuleURL as a text output names it.
const RuleRef = "docs/results.md#significance"

// Summary is one side's centre: the mean of its figures with the 95 %
// confidence interval of the mean (Student's t). Lo and Hi are infinite
// for a single figure.
type Summary struct {
	Mean, Lo, Hi float64
	N            int
}

// Summarize is benchmath's summary of vs under the normal assumption.
// vs is not modified.
func Summarize(vs []float64) Summary {
	if len(vs) == 0 {
		return Summary{Mean: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1)}
	}
	s := benchmath.AssumeNormal.Summary(benchmath.NewSample(slices.Clone(vs), &benchmath.DefaultThresholds), Confidence)
	return Summary{Mean: s.Center, Lo: s.Lo, Hi: s.Hi, N: len(vs)}
}

// HalfWidth is the half-width of the confidence interval, 0 where there is
// none (a single figure).
func (s Summary) HalfWidth() float64 {
	if s.N < 2 || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return 0
	}
	return (s.Hi - s.Lo) / 2
}

// Outcome is what the rule says of two sides.
type Outcome uint8

// The outcomes.
const (
	// CannotTell: too few figures to test (fewer than three in all, or
	// one a side); Comparison.Reason says which.
	CannotTell Outcome = iota
	// Same: tested, and the difference is within the noise (p >= Alpha).
	Same
	// Differs: tested, and the difference is real (p < Alpha).
	Differs
)

// Comparison is the rule applied to a reference (the first run, the
// baseline) and a candidate.
type Comparison struct {
	Ref, Cand Summary
	// ChangePct is the candidate's mean against the reference's, in
	// percent; NaN when the reference's mean is 0.
	ChangePct float64
	// P is the test's p-value (NaN when it could not be tested).
	P       float64
	Outcome Outcome
	// Exact is set when neither side varies at all (every figure of each
	// the same): there is no noise to judge by, the figures are taken as
	// exact, and any difference is real (P 0).
	Exact bool
	// Reason says why the rule cannot tell.
	Reason string
}

// Compare applies the rule to ref and cand (each one figure per measured
// repeat). Neither is modified.
func Compare(ref, cand []float64) Comparison {
	c := Comparison{Ref: Summarize(ref), Cand: Summarize(cand), P: math.NaN(), ChangePct: math.NaN()}
	if c.Ref.N > 0 && c.Ref.Mean != 0 {
		c.ChangePct = (c.Cand.Mean - c.Ref.Mean) / c.Ref.Mean * 100
	}
	n1, n2 := len(ref), len(cand)
	switch {
	case n1 == 0 || n2 == 0:
		c.Reason = "a side has no figure"
		return c
	case n1 < 2 && n2 < 2:
		c.Reason = "one figure a side: no spread to tell noise from a difference"
		return c
	}
	v1, v2 := stats.Variance(ref), stats.Variance(cand)
	switch {
	case v1 == 0 && v2 == 0:
		c.Exact = true
		c.P = 1
		if c.Ref.Mean != c.Cand.Mean {
			c.P = 0
		}
	case n1 >= 2 && n2 >= 2:
		// Welch's t-test, each side with its own variance.
		r := benchmath.AssumeNormal.Compare(benchmath.NewSample(slices.Clone(ref), &benchmath.DefaultThresholds),
			benchmath.NewSample(slices.Clone(cand), &benchmath.DefaultThresholds))
		c.P = r.P
	default:
		// One figure against several: it has no variance of its own, so
		// it takes the other side's (Student's pooled t-test, df = k-1).
		r, err := stats.TwoSampleTTest(stats.Sample{Xs: ref}, stats.Sample{Xs: cand}, stats.LocationDiffers)
		if err != nil {
			c.Reason = err.Error() // not reached: the zero-variance case is above
			return c
		}
		c.P = r.P
	}
	c.Outcome = Same
	if c.P < Alpha {
		c.Outcome = Differs
	}
	return c
}

// Higher and Lower say which way a real difference goes (false unless the
// rule calls it real).
func (c Comparison) Higher() bool { return c.Outcome == Differs && c.Cand.Mean > c.Ref.Mean }
func (c Comparison) Lower() bool  { return c.Outcome == Differs && c.Cand.Mean < c.Ref.Mean }

// Mark is the mark a change carries: "" when real, "~" within the noise,
// "?" when the rule cannot tell.
func (c Comparison) Mark() string {
	switch c.Outcome {
	case Differs:
		return ""
	case Same:
		return "~"
	}
	return "?"
}

// Stat is the test's figures as benchstat prints them: "p=0.40 n=3+3",
// "no spread n=1+5" for exact figures, "n=1+1" when it could not test.
func (c Comparison) Stat() string {
	n := fmt.Sprintf("n=%d+%d", c.Ref.N, c.Cand.N)
	switch {
	case c.Outcome == CannotTell:
		return n
	case c.Exact:
		return "no spread " + n
	}
	return FormatP(c.P) + " " + n
}

// FormatP is a p-value as the outputs print it: two significant digits
// ("p=0.40", "p=0.049"), more where two would round it across the level
// (0.0496 is "p=0.0496", never "p=0.05"), "p<0.001" below that.
func FormatP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	for digits := 2; ; digits++ {
		s := strconv.FormatFloat(p, 'f', -1, 64)
		if r, err := strconv.ParseFloat(strconv.FormatFloat(p, 'g', digits, 64), 64); err == nil && digits < 8 {
			if (r < Alpha) != (p < Alpha) {
				continue
			}
			s = strconv.FormatFloat(r, 'f', -1, 64)
			if digits == 2 && r >= 0.1 && len(s) < 4 {
				s = fmt.Sprintf("%.2f", r) // 0.4 as 0.40, as benchstat
			}
		}
		return "p=" + s
	}
}

// PctText is the change in percent with its mark: "-12.3%", "~+1.2%",
// "?+12.7%"; "" without a change (a reference of 0).
func (c Comparison) PctText() string {
	if math.IsNaN(c.ChangePct) {
		return ""
	}
	return c.Mark() + fmt.Sprintf("%+.1f%%", c.ChangePct)
}

// Text is the change with its mark and the test: "-12.3% (p=0.004
// n=3+3)", "~+1.2% (p=0.40 n=3+3)", "?+12.7% (n=1+1)".
func (c Comparison) Text() string {
	p := c.PctText()
	if p == "" {
		return ""
	}
	return p + " (" + c.Stat() + ")"
}

// Crown is a column's winner by the rule, or why there is none.
type Crown struct {
	// Winner is the crowned sample's index, -1 for none.
	Winner int
	// Rival is, when nobody is crowned, the sample the best one could not
	// be told apart from (-1 when fewer than two samples have figures:
	// nothing to beat), and Cmp that comparison (Rival as reference).
	Rival int
	Cmp   Comparison
}

// Best is the rule's winner among samples (nil or empty: no figure): the
// one with the best mean (higher or lower, as higherIsBetter says), crowned
// only when the rule calls it different from every other sample with a
// figure.
func Best(samples [][]float64, higherIsBetter bool) Crown {
	top, with := -1, 0
	var topMean float64
	for i, s := range samples {
		if len(s) == 0 {
			continue
		}
		with++
		m := stats.Mean(s)
		if top < 0 || higherIsBetter && m > topMean || !higherIsBetter && m < topMean {
			top, topMean = i, m
		}
	}
	if with < 2 {
		return Crown{Winner: -1, Rival: -1}
	}
	for i, s := range samples {
		if i == top || len(s) == 0 {
			continue
		}
		if c := Compare(s, samples[top]); c.Outcome != Differs {
			return Crown{Winner: -1, Rival: i, Cmp: c}
		}
	}
	return Crown{Winner: top, Rival: -1}
}

// Why says, for a column with no winner, why not, naming the samples by
// name(i): "A and B differ by less than their noise (p=0.40 n=3+3)", "the
// rule cannot tell A from B: one figure a side (n=1+1)". "" when there is
// a winner or nothing to beat.
func (c Crown) Why(best int, name func(int) string) string {
	if c.Winner >= 0 || c.Rival < 0 {
		return ""
	}
	if c.Cmp.Outcome == CannotTell {
		return fmt.Sprintf("the rule cannot tell %s from %s: %s (%s)", name(best), name(c.Rival), c.Cmp.Reason, c.Cmp.Stat())
	}
	return fmt.Sprintf("%s and %s differ by less than their noise (%s)", name(c.Rival), name(best), c.Cmp.Stat())
}

// Judgement is the regression check's reading of one rate column (more is
// better) against its baseline.
type Judgement uint8

// The judgements, each column exactly one.
const (
	// NotJudged: the rule cannot tell (too few figures).
	NotJudged Judgement = iota
	// TooNoisy: the baseline varies so much that even a fall to zero
	// would be within its noise: it cannot judge the column.
	TooNoisy
	// Fell: the rule calls the figure lower, and it fell by more than
	// the threshold: a regression.
	Fell
	// FellWithinNoise: it fell by more than the threshold, but the rule
	// calls the fall noise.
	FellWithinNoise
	// Rose: it rose by more than the threshold (real or not, as the
	// comparison says): a rise can be a cache.
	Rose
	// Held: within the threshold either way.
	Held
)

// Judge reads now against base (every figure of the baseline's runs) with
// a threshold of pct percent. A fall is a regression only when the rule
// calls it real and it is larger than pct; a baseline against which even a
// figure of zero (with now's count of figures) would be within the noise is
// too noisy to judge the column.
func Judge(base, now []float64, pct float64) (Judgement, Comparison) {
	c := Compare(base, now)
	if c.Outcome == CannotTell || math.IsNaN(c.ChangePct) {
		return NotJudged, c
	}
	if Compare(base, make([]float64, len(now))).Outcome != Differs {
		return TooNoisy, c
	}
	switch {
	case -c.ChangePct > pct && c.Outcome == Differs:
		return Fell, c
	case -c.ChangePct > pct:
		return FellWithinNoise, c
	case c.ChangePct > pct:
		return Rose, c
	}
	return Held, c
}
