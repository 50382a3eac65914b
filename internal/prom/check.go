package prom

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/clydebench/clyde/internal/verdict"
	"github.com/clydebench/clyde/result"
)

// The regression check's metrics (--check-regression with
// --prom-textfile): every rate column of the run against its baseline, by
// the rule that decides compare's marks, the page's winners and the
// check's alarm (docs/results.md, Significance). Labels: host, kind ("fs",
// "block", "copy"), target (as the history names it) and column (as
// clyde compare names it).
const (
	CheckChange    = "clyde_check_change_percent"
	CheckPValue    = "clyde_check_p_value"
	CheckVerdict   = "clyde_check_verdict"
	CheckRegressed = "clyde_check_regressed"
)

// AddCheck adds rc's columns to reg: the change against the baseline's
// mean and the test's p-value where there are ones, the rule's verdict (-1
// lower, 0 within the noise, 1 higher; no series where it cannot tell)
// and whether the column regressed (fell by the rule more than the
// threshold: 1, else 0).
func AddCheck(reg *prometheus.Registry, host, kind, target string, rc *result.RegressionCheck) {
	labels := []string{"host", "kind", "target", "column"}
	change := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: CheckChange, Help: "Change of one rate column against the mean of the regression check's baseline, in percent."}, labels)
	pv := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: CheckPValue, Help: "p-value of the rule's test (Welch's t-test) of one rate column against the regression check's baseline."}, labels)
	verdicts := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: CheckVerdict, Help: "The rule's verdict on one rate column against the baseline: -1 lower, 0 within the noise, 1 higher (p < 0.05); absent when it cannot tell. The rule: " + verdict.RuleURL}, labels)
	regressed := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: CheckRegressed, Help: "1 when the column fell by the rule more than --check-regression's threshold."}, labels)
	reg.MustRegister(change, pv, verdicts, regressed)
	fell := map[string]bool{}
	for _, k := range rc.Fell {
		fell[k] = true
	}
	for _, c := range rc.Columns {
		l := []string{host, kind, target, c.Column}
		if c.ChangePct != nil {
			change.WithLabelValues(l...).Set(*c.ChangePct)
		}
		if c.PValue != nil {
			pv.WithLabelValues(l...).Set(*c.PValue)
		}
		switch {
		case c.Verdict == "within_noise":
			verdicts.WithLabelValues(l...).Set(0)
		case c.Verdict == "differs" && c.Mean > c.BaselineMean:
			verdicts.WithLabelValues(l...).Set(1)
		case c.Verdict == "differs":
			verdicts.WithLabelValues(l...).Set(-1)
		}
		r := 0.0
		if fell[c.Column] {
			r = 1
		}
		regressed.WithLabelValues(l...).Set(r)
	}
}
