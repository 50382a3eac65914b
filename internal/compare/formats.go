package compare

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/clydebench/clyde/internal/verdict"
)

// The table in clyde's own machine-readable forms (compare --format csv or
// json). Values stay in the figures' own units (KiB/s, files/s, ns, B/s),
// unscaled, and a figure measured under 0.5 s keeps its number with
// "short" set, where bonnie++'s CSV has only +++++.

// stateName is a cell's state in the CSV and JSON forms.
func stateName(s State) string {
	switch s {
	case Known:
		return "known"
	case TooFast:
		return "too_short_no_figure"
	case Unknown:
		return "unknown"
	}
	return "not_run"
}

// CSVHeader is the first line WriteCSV writes.
var CSVHeader = []string{"column", "unit", "higher_is_better", "run", "label", "state", "value", "spread",
	"repeats", "short", "vs_first_pct", "ci95", "p_value", "verdict"}

// WriteCSV writes one line per column and run (long form: what a
// spreadsheet pivot or pandas reads without reshaping).
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range t.Rows {
		for i, c := range r.Cells {
			rec := []string{r.Key, r.Unit, strconv.FormatBool(r.HigherIsBetter), runLetter(i), t.Runs[i].Label,
				stateName(c.State), "", "", strconv.Itoa(c.N), strconv.FormatBool(c.Short && c.State == Known), "", "", "", ""}
			if c.State == Known {
				rec[6] = strconv.FormatFloat(c.Value, 'g', -1, 64)
				rec[7] = strconv.FormatFloat(c.Spread, 'g', -1, 64)
				rec[11] = strconv.FormatFloat(c.CI, 'g', -1, 64)
			}
			if c.HasChange {
				rec[10] = strconv.FormatFloat(c.ChangePct, 'f', 2, 64)
				if !math.IsNaN(c.Cmp.P) {
					rec[12] = strconv.FormatFloat(c.Cmp.P, 'g', 4, 64)
				}
				rec[13] = verdictName(c.Cmp.Outcome)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonTable is WriteJSON's document.
type jsonTable struct {
	Runs []jsonRun `json:"runs"`
	Rows []jsonRow `json:"rows"`
	// Rule is where the rule behind every verdict is written down.
	Rule string `json:"rule"`
}

type jsonRun struct {
	Run      string     `json:"run"`
	Label    string     `json:"label"`
	Source   string     `json:"source"`
	Name     string     `json:"name,omitempty"`
	Host     string     `json:"host,omitempty"`
	Target   string     `json:"target,omitempty"`
	KeyFlags string     `json:"key_flags,omitempty"`
	Started  *time.Time `json:"start_time,omitempty"`
}

type jsonRow struct {
	Column         string     `json:"column"`
	Unit           string     `json:"unit"`
	HigherIsBetter bool       `json:"higher_is_better"`
	Cells          []jsonCell `json:"cells"`
}

type jsonCell struct {
	State  string   `json:"state"`
	Value  *float64 `json:"value,omitempty"`
	Spread *float64 `json:"spread,omitempty"`
	N      int      `json:"repeats"`
	Short  bool     `json:"short,omitempty"`
	// CI95 is the half-width of the mean's 95 % confidence interval.
	CI95 *float64 `json:"ci95,omitempty"`
	// VsFirstPct is the change against the first run, in percent; PValue
	// and Verdict the rule's on it (verdictName).
	VsFirstPct     *float64 `json:"vs_first_pct,omitempty"`
	PValue         *float64 `json:"p_value,omitempty"`
	Verdict        string   `json:"verdict,omitempty"`
	NotSignificant bool     `json:"not_significant,omitempty"`
}

// verdictName is the rule's outcome in the CSV and JSON forms: "differs"
// (p < 0.05), "within_noise" or "cannot_tell".
func verdictName(o verdict.Outcome) string {
	switch o {
	case verdict.Differs:
		return "differs"
	case verdict.Same:
		return "within_noise"
	}
	return "cannot_tell"
}

// WriteJSON writes the runs and every column's cells.
func (t *Table) WriteJSON(w io.Writer) error {
	doc := jsonTable{Runs: []jsonRun{}, Rows: []jsonRow{}, Rule: verdict.RuleURL}
	for i, r := range t.Runs {
		jr := jsonRun{Run: runLetter(i), Label: r.Label, Source: r.Source, Name: r.Name(), Host: r.Host(),
			Target: r.Target(), KeyFlags: r.KeyFlags()}
		if st := r.Provenance().StartTime; !st.IsZero() {
			jr.Started = &st
		}
		doc.Runs = append(doc.Runs, jr)
	}
	for _, r := range t.Rows {
		jr := jsonRow{Column: r.Key, Unit: r.Unit, HigherIsBetter: r.HigherIsBetter}
		for _, c := range r.Cells {
			jc := jsonCell{State: stateName(c.State), N: c.N}
			if c.State == Known {
				v, s, ci := c.Value, c.Spread, c.CI
				jc.Value, jc.Spread, jc.Short, jc.CI95 = &v, &s, c.Short, &ci
			}
			if c.HasChange {
				p := c.ChangePct
				jc.VsFirstPct, jc.Verdict, jc.NotSignificant = &p, verdictName(c.Cmp.Outcome), c.Cmp.Outcome == verdict.Same
				if pv := c.Cmp.P; !math.IsNaN(pv) {
					jc.PValue = &pv
				}
			}
			jr.Cells = append(jr.Cells, jc)
		}
		doc.Rows = append(doc.Rows, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
