package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/clydebench/clyde/internal/verdict"
)

// Cell is one run's figure in a comparison row.
type Cell struct {
	State State
	// Value is the mean of the repeats; Spread their range (max - min),
	// 0 with a single value; CI the half-width of the mean's 95 %
	// confidence interval (verdict.Summary), 0 with a single value.
	Value  float64
	Spread float64
	CI     float64
	N      int
	// Values are the repeats' figures, as the rule takes them.
	Values []float64
	// ChangePct is the change against the first run in percent, and Cmp
	// the rule's verdict on it (internal/verdict); valid when HasChange.
	ChangePct float64
	HasChange bool
	Cmp       verdict.Comparison
	// Short marks a value measured over less than 0.5 s (Figure.Short).
	Short bool
}

// Row is one column of the runs (a test, a latency, a job's IOPS).
type Row struct {
	Key            string
	Unit           string
	HigherIsBetter bool
	Cells          []Cell
}

// Table is runs side by side.
type Table struct {
	Runs []*Run
	Rows []Row
	// copyJudged is set once the copy text has shown a change.
	copyJudged bool
}

// Compare lines the runs' figures up by column. Runs must all be of one kind.
func Compare(runs []*Run) (*Table, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("compare needs at least two runs, got %d", len(runs))
	}
	for _, r := range runs[1:] {
		if r.Kind() != runs[0].Kind() {
			return nil, fmt.Errorf("cannot compare an %s run (%s) with a %s run (%s): their columns differ",
				runs[0].Kind(), runs[0].Label, r.Kind(), r.Label)
		}
	}
	t := &Table{Runs: runs}
	index := map[string]int{}
	for ri, r := range runs {
		for _, f := range r.Figures() {
			i, ok := index[f.Key]
			if !ok {
				i = len(t.Rows)
				index[f.Key] = i
				t.Rows = append(t.Rows, Row{Key: f.Key, Unit: f.Unit, HigherIsBetter: f.HigherIsBetter,
					Cells: make([]Cell, len(runs))})
				for k := range t.Rows[i].Cells {
					t.Rows[i].Cells[k].State = NotRun
				}
			}
			c := Cell{State: f.State, N: len(f.Values), Short: f.Short}
			if f.State == Known && len(f.Values) > 0 {
				sum := verdict.Summarize(f.Values)
				c.Value, c.Spread, c.CI, c.Values = sum.Mean, spread(f.Values), sum.HalfWidth(), f.Values
			} else if f.State == Known {
				c.State = NotRun
			}
			t.Rows[i].Cells[ri] = c
		}
	}
	for i := range t.Rows {
		cells := t.Rows[i].Cells
		base := cells[0]
		for k := 1; k < len(cells); k++ {
			c := &cells[k]
			if base.State != Known || c.State != Known || base.Value == 0 {
				continue
			}
			c.Cmp = verdict.Compare(base.Values, c.Values)
			c.ChangePct, c.HasChange = c.Cmp.ChangePct, true
		}
	}
	// Drop rows no run has: they only say "not run" everywhere.
	kept := t.Rows[:0]
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.State != NotRun {
				kept = append(kept, r)
				break
			}
		}
	}
	t.Rows = kept
	return t, nil
}

// WriteText prints the table: a legend of the runs, then one line per column
// with each run's figure and its change against the first run.
func (t *Table) WriteText(w io.Writer) error {
	if t.Runs[0].Copy != nil {
		return t.writeCopyText(w)
	}
	var b strings.Builder
	t.legend(&b)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len("column")
	for _, r := range t.Rows {
		width = max(width, len(r.Key))
	}
	fmt.Fprintf(tw, "%-*s\tunit\t", width, "column")
	for i := range t.Runs {
		fmt.Fprintf(tw, "%s\t", runLetter(i))
		if i > 0 {
			fmt.Fprintf(tw, "vs A\t")
		}
	}
	fmt.Fprintln(tw)
	for _, r := range t.Rows {
		unit, scale := displayUnit(r)
		fmt.Fprintf(tw, "%-*s\t%s\t", width, r.Key, unit)
		for i, c := range r.Cells {
			fmt.Fprintf(tw, "%s\t", cellText(c, scale))
			if i > 0 {
				fmt.Fprintf(tw, "%s\t", changeText(c))
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	notes := t.verdictNotes()
	if t.anyState(Unknown) {
		notes = append(notes, "unknown: bonnie++ 1.98+/2.00a text reports print the file count where the file rates belong; give the CSV line to see them.")
	}
	if t.anyShort() {
		notes = append(notes, ShortNote)
	}
	if n := ParamsNote(t.Runs); n != "" {
		notes = append(notes, n)
	}
	if t.anyState(TooFast) {
		notes = append(notes, "+++++: the test took under 0.5 s and the input (bonnie++'s output) kept no figure.")
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// legend names each run by its letter, then a blank line.
func (t *Table) legend(b *strings.Builder) {
	for i, r := range t.Runs {
		fmt.Fprintf(b, "%s  %s  %s", runLetter(i), r.Label, r.Source)
		if h := r.Host(); h != "" {
			fmt.Fprintf(b, ", host %s", h)
		}
		if r.FS != nil && r.Name() != "" && r.Name() != r.Host() {
			fmt.Fprintf(b, ", -m %s", r.Name()) // the name the run was given, bonnie++'s first CSV field
		}
		if tg := r.Target(); tg != "" {
			fmt.Fprintf(b, ", %s", tg)
		}
		if !r.Provenance().StartTime.IsZero() {
			fmt.Fprintf(b, ", %s", r.Provenance().StartTime.Format("2006-01-02 15:04"))
		}
		if n := repeats(r); n > 1 {
			fmt.Fprintf(b, ", %d repeats", n)
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
}

func repeats(r *Run) int {
	if r.FS != nil {
		return len(r.FS.Runs)
	}
	return 1
}

// verdictNotes explain the marks of the changes, each once: what ±, p and
// n are, ~ and ?, and where the rule is written down.
func (t *Table) verdictNotes() []string {
	any, outcome := false, map[verdict.Outcome]bool{}
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.HasChange {
				any, outcome[c.Cmp.Outcome] = true, true
			}
		}
	}
	if !any {
		return nil
	}
	notes := []string{VerdictNote}
	if outcome[verdict.Same] {
		notes = append(notes, SameNote)
	}
	if outcome[verdict.CannotTell] {
		notes = append(notes, CannotTellNote)
	}
	return notes
}

// The notes under every table of changes (compare's text, the page):
// what the figures beside a change are, and what its marks mean.
const (
	VerdictNote = "A change is real when Welch's t-test on the repeats gives p < 0.05 (n: the figures on each side); " +
		"± is the 95 % confidence interval of the mean. The rule: " + verdict.RuleRef + "."
	SameNote       = "~ marks a change within the noise of the repeats (p >= 0.05): the rule cannot tell it from run-to-run variation."
	CannotTellNote = "? marks a change the rule cannot judge (n=1+1): one figure a side has no spread to tell noise from a difference; " +
		"-x 3 or more gives each run repeats."
)

func (t *Table) anyShort() bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.State == Known && c.Short {
				return true
			}
		}
	}
	return false
}

func (t *Table) anyState(s State) bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.State == s {
				return true
			}
		}
	}
	return false
}

// RunLetter names run i in tables: A, B, ..., Z, AA, ...
func RunLetter(i int) string { return runLetter(i) }

func runLetter(i int) string {
	s := ""
	for {
		s = string(rune('A'+i%26)) + s
		i = i/26 - 1
		if i < 0 {
			return s
		}
	}
}

// DisplayUnit picks the one unit a column's numbers read well in, and the
// factor from the figures' own unit to it: MiB/s for KiB/s rates from
// 10 MiB/s up and for B/s, us, ms or s for latencies in ns (by the middle of
// the column's range on a log scale, so both ends keep digits). Every
// report (compare's table, the HTML page, history's key figures) takes its
// units from here, so a column has the same unit everywhere.
func DisplayUnit(unit string, values []float64) (string, float64) {
	var top float64
	lo := math.Inf(1)
	for _, v := range values {
		if v > 0 {
			top, lo = max(top, v), min(lo, v)
		}
	}
	switch unit {
	case "KiB/s":
		if top >= 10*1024 {
			return "MiB/s", 1.0 / 1024
		}
	case "B/s":
		return "MiB/s", 1.0 / (1 << 20)
	case "ns":
		mid := 0.0
		if top > 0 {
			mid = math.Sqrt(top * lo)
		}
		switch {
		case mid >= 1e9:
			return "s", 1e-9
		case mid >= 1e6:
			return "ms", 1e-6
		case mid >= 1e3 || top == 0:
			return "us", 1e-3
		}
		return "ns", 1
	}
	return unit, 1
}

// displayUnit is DisplayUnit for a row's known cells.
func displayUnit(r Row) (string, float64) {
	var vs []float64
	for _, c := range r.Cells {
		if c.State == Known {
			vs = append(vs, c.Value)
		}
	}
	return DisplayUnit(r.Unit, vs)
}

// ShortMark follows a figure measured over less than 0.5 s, where bonnie++
// prints +++++; ShortNote explains it under a table.
const (
	ShortMark = "*"
	ShortNote = "* ran under 0.5 s, where bonnie++ prints +++++: the measured rate, with low confidence."
)

// FormatValue is v (in the figure's unit) in the display unit scale gives.
func FormatValue(v, scale float64) string { return formatNumber(v * scale) }

func cellText(c Cell, scale float64) string {
	switch c.State {
	case NotRun:
		return "-"
	case TooFast:
		return "+++++"
	case Unknown:
		return "unknown"
	}
	v := c.Value * scale
	s := formatNumber(v)
	if c.CI > 0 {
		s += " ±" + formatNumber(c.CI*scale)
	}
	if c.Short {
		s += ShortMark
	}
	return s
}

func formatNumber(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100 || a == 0:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 0.1:
		return fmt.Sprintf("%.2f", v)
	default:
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
}

func changeText(c Cell) string {
	if !c.HasChange {
		return ""
	}
	if c.Cmp.Outcome == verdict.CannotTell {
		return c.Cmp.PctText() // "?": the note says why, once
	}
	return c.Cmp.Text()
}

// ParamsNote says, when the runs were not made with the same parameters (the
// ones the regression check requires to match, Run.Params), which runs used
// which: their figures are then not like for like, whatever the bars show
// (two --auto runs on different drives, for one, pick their own sizes). ""
// when every run's match the first's. Runs with the same parameters are
// named together.
func ParamsNote(runs []*Run) string {
	type group struct{ letters, flags, params string }
	var groups []group
	hidden := false // two groups whose flags read the same
	for i, r := range runs {
		p := r.Params()
		if k := slices.IndexFunc(groups, func(g group) bool { return g.params == p }); k >= 0 {
			groups[k].letters += ", " + runLetter(i)
			continue
		}
		f := r.KeyFlags()
		hidden = hidden || slices.ContainsFunc(groups, func(g group) bool { return g.flags == f })
		groups = append(groups, group{runLetter(i), f, p})
	}
	if len(groups) < 2 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The runs were made with different parameters (")
	for k, g := range groups {
		if k > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s", g.letters, g.flags)
	}
	b.WriteString(")")
	if hidden {
		b.WriteString(", some in options these flags do not show")
	}
	b.WriteString(": figures that depend on them are not like for like.")
	return b.String()
}
