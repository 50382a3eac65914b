package htmlreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/verdict"
)

// The page's data, before any HTML or SVG: what every chart and table
// shows. Tests compare it with golden files (testdata/html/*.json), so a
// change to what a chart says shows up as a change to its data.

// pageData is everything the page shows.
type pageData struct {
	Title string `json:"title"`
	Kind  string `json:"kind"`
	// Single is a page of one run: a run's own layout, with no bars,
	// winners or percentages, which would only compare it with itself.
	Single  bool         `json:"single"`
	Runs    []runInfo    `json:"runs"`
	Summary *summaryData `json:"summary,omitempty"`
	Bars    []barData    `json:"bars,omitempty"`
	Tables  []tableData  `json:"tables"`
	Charts  []chart      `json:"charts"`
	Notes   []string     `json:"notes,omitempty"`
	// Tool is the block tool every run is of (tools.go), "" for fs runs,
	// fio-style jobs and a mix; its page opens with the tool's own views,
	// one per run that has one, and ends with the figures above.
	Tool    string        `json:"tool,omitempty"`
	CDM     []cdmWindow   `json:"cdm,omitempty"`
	Orion   []orionView   `json:"orion,omitempty"`
	Iometer []iometerView `json:"iometer,omitempty"`
	Copy    []copyView    `json:"copy,omitempty"`
	// Hosts has a view per many-client run (hosts.go).
	Hosts []hostsView `json:"hosts,omitempty"`
}

// runInfo is one run's row of the Runs table.
type runInfo struct {
	Letter string `json:"letter"`
	Color  string `json:"color"`
	// Name is the run's own name (fs -m); Label where it was read from.
	Name  string `json:"name"`
	Label string `json:"label"`
	// Short names the run in bar labels and legends (shortNames).
	Short        string `json:"short"`
	Source       string `json:"source"`
	Host         string `json:"host"`
	Target       string `json:"target"`
	FSType       string `json:"fs_type"`
	FSNote       string `json:"fs_note,omitempty"`
	MountOptions string `json:"mount_options"`
	Device       string `json:"device"`
	Flags        string `json:"flags"`
	Started      string `json:"started"`
}

// cellState says what a cell holds.
const (
	stateKnown   = "known"
	stateShort   = "short" // measured under 0.5 s: shown, marked
	stateTooFast = "too_fast"
	stateUnknown = "unknown"
	stateNotRun  = "not_run"
)

// cell is one run's figure in a column, in the column's display unit.
type cell struct {
	Run   int     `json:"run"`
	State string  `json:"state"`
	Raw   float64 `json:"raw,omitempty"`   // in the figure's own unit
	Value float64 `json:"value,omitempty"` // in the column's display unit
	Text  string  `json:"text"`
	// CI is the half-width of the mean's 95 % confidence interval in the
	// display unit, CIText it as the tables print it ("±12"); 0 and ""
	// for a single figure.
	CI     float64 `json:"ci95,omitempty"`
	CIText string  `json:"ci_text,omitempty"`
	// VsFirst is the change against the first run with the rule's mark
	// ("~+1.2%", verdict.Comparison.PctText) and VsTest the test behind
	// it ("p=0.40 n=3+3"); "" for the first run, a single-run page, or a
	// cell without a figure.
	VsFirst string `json:"vs_first,omitempty"`
	VsTest  string `json:"vs_test,omitempty"`
	// Best is set for the column's winner by the rule.
	Best bool `json:"best,omitempty"`
	// values are the repeats' figures, for the rule.
	values []float64
	// ElapsedNs is how long the test ran (0: not known).
	ElapsedNs float64 `json:"elapsed_ns,omitempty"`
}

// column is one figure across the runs: a test's rate, a latency, a job's
// IOPS.
type column struct {
	Key            string `json:"key"`
	Unit           string `json:"unit"` // the display unit, one for every cell
	HigherIsBetter bool   `json:"higher_is_better"`
	scale          float64
	Cells          []cell `json:"cells"`
	// Best is the column's winner by the rule (verdict.Best), empty for
	// none; BestShort says it was measured under 0.5 s (a winner of low
	// confidence). NoWinner says why nobody is crowned, "" when there is
	// a winner or nothing to beat (fewer than two figures).
	Best      []int  `json:"best,omitempty"`
	BestShort bool   `json:"best_short,omitempty"`
	NoWinner  string `json:"no_winner,omitempty"`
}

// better says which way a column is better, as the page prints it.
func (c *column) better() string {
	if c.HigherIsBetter {
		return "more is better"
	}
	return "less is better"
}

// columns lines the runs' figures up by key (figureGrid), leaves out the
// columns no run has, and picks each column's unit, texts, changes
// against the first run and best runs.
func columns(runs []*compare.Run, infos []runInfo) []column {
	keys, proto, grid := figureGrid(runs)
	var out []column
	for k, key := range keys {
		f := proto[key]
		col := column{Key: key, HigherIsBetter: f.HigherIsBetter}
		var raws []float64
		any := false
		for i := range runs {
			g := grid[i][k]
			if g.State != compare.NotRun {
				any = true
			}
			if g.State == compare.Known && len(g.Values) > 0 {
				raws = append(raws, avg(g.Values))
			}
		}
		if !any {
			continue
		}
		col.Unit, col.scale = compare.DisplayUnit(f.Unit, raws)
		for i := range runs {
			col.Cells = append(col.Cells, makeCell(i, grid[i][k], col.scale))
		}
		if len(runs) > 1 {
			markChanges(&col)
			markBest(&col, infos)
		}
		out = append(out, col)
	}
	return out
}

func makeCell(run int, f compare.Figure, scale float64) cell {
	c := cell{Run: run, State: stateNotRun, Text: "-"}
	switch f.State {
	case compare.TooFast:
		c.State, c.Text = stateTooFast, "+++++"
	case compare.Unknown:
		c.State, c.Text = stateUnknown, "unknown"
	case compare.Known:
		if len(f.Values) == 0 {
			break
		}
		sum := verdict.Summarize(f.Values)
		c.State, c.Raw, c.values = stateKnown, sum.Mean, f.Values
		c.Value = c.Raw * scale
		c.Text = compare.FormatValue(c.Raw, scale)
		if h := sum.HalfWidth(); h > 0 {
			c.CI, c.CIText = h*scale, "±"+compare.FormatValue(h, scale)
		}
		c.ElapsedNs = f.ElapsedNs
		if f.Short {
			c.State = stateShort
			c.Text += compare.ShortMark
		}
	}
	return c
}

func hasFigure(c cell) bool { return c.State == stateKnown || c.State == stateShort }

// markChanges fills each cell's change against the first run, with the
// rule's mark and test.
func markChanges(col *column) {
	base := col.Cells[0]
	if !hasFigure(base) || base.Raw == 0 {
		return
	}
	for i := 1; i < len(col.Cells); i++ {
		if c := &col.Cells[i]; hasFigure(*c) {
			cmp := verdict.Compare(base.values, c.values)
			c.VsFirst, c.VsTest = cmp.PctText(), cmp.Stat()
		}
	}
}

// markBest crowns the column's winner by the rule (verdict.Best): the
// best figure, when the rule calls it different from every other run's;
// otherwise nobody, and NoWinner says why. A figure under 0.5 s takes part
// like any other: a test that finished under 0.5 s was fast, not slow. A
// winner under 0.5 s is marked (BestShort), and the notes say so. A
// column with one figure has no winner: there is nothing to beat.
func markBest(col *column, runs []runInfo) {
	samples := make([][]float64, len(col.Cells))
	for i, c := range col.Cells {
		if hasFigure(c) {
			samples[i] = c.values
		}
	}
	cr := verdict.Best(samples, col.HigherIsBetter)
	if cr.Winner < 0 {
		top := -1
		for i, c := range col.Cells {
			if hasFigure(c) && (top < 0 || col.isBetter(c.Raw, col.Cells[top].Raw)) {
				top = i
			}
		}
		col.NoWinner = cr.Why(top, func(i int) string { return runs[i].Letter })
		return
	}
	col.Best = []int{cr.Winner}
	col.Cells[cr.Winner].Best = true
	col.BestShort = col.Cells[cr.Winner].State == stateShort
}

func (c *column) isBetter(a, b float64) bool {
	if c.HigherIsBetter {
		return a > b
	}
	return a < b
}

// barData is one column's bar chart: a bar per run, in run order.
// NoWinner says why the rule crowns nobody ("" when it does, or when
// there is nothing to beat).
type barData struct {
	Key      string `json:"key"`
	Title    string `json:"title"`
	Unit     string `json:"unit"`
	Better   string `json:"better"`
	Bars     []bar  `json:"bars"`
	NoWinner string `json:"no_winner,omitempty"`
}

// bar is one run's bar. Length is the bar's share of the chart's scale
// (the longest bar with its error bar); PctOfBest the figure as a
// percentage of the rule's winner (100 for it; 0 with no winner); Lo and
// Hi the ends of the error bar (the mean's 95 % confidence interval) on
// the same scale, 0 for a single figure.
type bar struct {
	Run       int     `json:"run"`
	Label     string  `json:"label"`
	State     string  `json:"state"`
	Value     float64 `json:"value,omitempty"`
	Text      string  `json:"text"`
	CIText    string  `json:"ci_text,omitempty"`
	Length    float64 `json:"length"`
	Lo        float64 `json:"lo,omitempty"`
	Hi        float64 `json:"hi,omitempty"`
	PctOfBest float64 `json:"pct_of_best,omitempty"`
	Best      bool    `json:"best,omitempty"`
}

// bars makes a bar chart of every rate column (more is better).
func bars(cols []column, runs []runInfo, titles func(string) string) []barData {
	var out []barData
	for _, col := range cols {
		if !col.HigherIsBetter {
			continue
		}
		b := barData{Key: col.Key, Title: titles(col.Key), Unit: col.Unit, Better: col.better(), NoWinner: col.NoWinner}
		var longest, best float64
		for _, c := range col.Cells {
			if hasFigure(c) {
				longest = max(longest, c.Value+c.CI)
			}
		}
		for _, i := range col.Best {
			best = col.Cells[i].Value
		}
		for i, c := range col.Cells {
			br := bar{Run: i, Label: runs[i].Letter + " " + runs[i].shortName(), State: c.State, Text: c.Text, CIText: c.CIText, Best: c.Best}
			if hasFigure(c) {
				br.Value = c.Value
				if longest > 0 {
					br.Length = c.Value / longest
					if c.CI > 0 {
						br.Lo, br.Hi = max(c.Value-c.CI, 0)/longest, (c.Value+c.CI)/longest
					}
				}
				if best > 0 {
					br.PctOfBest = c.Value / best * 100
				}
			}
			b.Bars = append(b.Bars, br)
		}
		out = append(out, b)
	}
	return out
}

// shortName is what a bar is labelled with after the run's letter.
func (r runInfo) shortName() string { return r.Short }

// shortNames names each run for bar labels and legends: its own name (fs
// -m) when no other run has the same one, else where it was read from,
// keeping the end (the line number) when it is long.
func shortNames(runs []runInfo) {
	count := map[string]int{}
	for _, r := range runs {
		count[r.Name]++
	}
	for i := range runs {
		n := runs[i].Name
		if n == "" || count[n] > 1 {
			n = runs[i].Label
		}
		if rs := []rune(n); len(rs) > 26 {
			n = "…" + string(rs[len(rs)-25:])
		}
		runs[i].Short = n
	}
}

// summaryData is the overall comparison: each run's geometric mean over
// the rate columns every run measured for 0.5 s or more, relative to the
// first run, and how many columns the rule crowned it in.
type summaryData struct {
	Columns []string     `json:"columns"`
	Left    []string     `json:"left_out,omitempty"`
	Runs    []summaryBar `json:"runs"`
	Bars    []bar        `json:"bars"`
}

type summaryBar struct {
	Run int `json:"run"`
	// GeoMeanPct is the geometric mean of the run's figure over the first
	// run's, in percent (the first run is 100).
	GeoMeanPct float64 `json:"geomean_pct"`
	Wins       int     `json:"wins"`
}

func summarize(cols []column, runs []runInfo) *summaryData {
	s := &summaryData{}
	logs := make([]float64, len(runs))
	wins := make([]int, len(runs))
	rates := 0
	for _, col := range cols {
		if !col.HigherIsBetter {
			continue
		}
		rates++
		for _, i := range col.Best {
			wins[i]++
		}
		ok := col.Cells[0].State == stateKnown && col.Cells[0].Raw > 0
		for _, c := range col.Cells {
			ok = ok && c.State == stateKnown && c.Raw > 0
		}
		if !ok {
			s.Left = append(s.Left, col.Key)
			continue
		}
		s.Columns = append(s.Columns, col.Key)
		for i, c := range col.Cells {
			logs[i] += math.Log(c.Raw / col.Cells[0].Raw)
		}
	}
	if rates == 0 {
		return nil
	}
	var longest float64
	for i := range runs {
		sb := summaryBar{Run: i, Wins: wins[i]}
		if len(s.Columns) > 0 {
			sb.GeoMeanPct = math.Exp(logs[i]/float64(len(s.Columns))) * 100
		}
		longest = max(longest, sb.GeoMeanPct)
		s.Runs = append(s.Runs, sb)
	}
	if len(s.Columns) == 0 {
		return s
	}
	// No star here: a geometric mean over columns is no figure the rule
	// tests; the wins beside each bar are the rule's, column by column.
	for i, sb := range s.Runs {
		text := fmt.Sprintf("%.1f%%", sb.GeoMeanPct)
		s.Bars = append(s.Bars, bar{Run: i, Label: runs[i].Letter + " " + runs[i].shortName(), State: stateKnown,
			Value: sb.GeoMeanPct, Text: text, Length: sb.GeoMeanPct / longest})
	}
	return s
}

// tableData is one figures table: a row per run and a column per figure
// (unit stated once, in the header), or for a single run a row per
// figure.
type tableData struct {
	Title string `json:"title"`
	// ID names the table in the page; Rates is set for a table of rates.
	ID      string   `json:"id"`
	Rates   bool     `json:"rates"`
	Columns []column `json:"columns"`
	Winners []string `json:"winners,omitempty"`
	// NoWinners says, per column, why the rule crowned nobody ("").
	NoWinners []string   `json:"no_winners,omitempty"`
	Rows      []tableRow `json:"rows,omitempty"`
}

type tableRow struct {
	Run   int    `json:"run"`
	Cells []cell `json:"cells"`
}

// tableWidth is the most figure columns one table has, so that a table of
// runs fits a 1280-pixel screen; more columns split evenly into tables.
const tableWidth = 8

// tables splits the columns (rates, then latencies) into tables of at most
// tableWidth columns, each with its winners row.
func tables(cols []column, runs []runInfo) []tableData {
	var out []tableData
	for _, group := range []struct {
		title  string
		higher bool
	}{{"Rates (more is better)", true}, {"Latency (less is better)", false}} {
		var gc []column
		for _, c := range cols {
			if c.HigherIsBetter == group.higher {
				gc = append(gc, c)
			}
		}
		if len(gc) == 0 {
			continue
		}
		n := (len(gc) + tableWidth - 1) / tableWidth
		size := (len(gc) + n - 1) / n
		for start := 0; start < len(gc); start += size {
			part := gc[start:min(start+size, len(gc))]
			t := tableData{Title: group.title, Columns: part, Rates: group.higher, ID: fmt.Sprintf("t%d", len(out)+1)}
			if n > 1 {
				t.Title = fmt.Sprintf("%s (%d of %d)", group.title, start/size+1, n)
			}
			for i := range runs {
				row := tableRow{Run: i}
				for _, c := range part {
					row.Cells = append(row.Cells, c.Cells[i])
				}
				t.Rows = append(t.Rows, row)
			}
			for _, c := range part {
				t.Winners = append(t.Winners, winnerText(c, runs))
				t.NoWinners = append(t.NoWinners, c.NoWinner)
			}
			out = append(out, t)
		}
	}
	return out
}

func winnerText(c column, runs []runInfo) string {
	var ls []string
	for _, i := range c.Best {
		ls = append(ls, runs[i].Letter)
	}
	s := strings.Join(ls, " ")
	if s == "" && c.NoWinner != "" {
		return "none"
	}
	if s == "" {
		return "-"
	}
	if c.BestShort {
		s += compare.ShortMark
	}
	return s
}

// singleTables are a single run's figures: a row per figure, rates then
// latencies, each with its own unit.
func singleTables(cols []column) []tableData {
	var out []tableData
	for _, group := range []struct {
		title, id string
		higher    bool
	}{{"Rates (more is better)", "rates", true}, {"Latency (less is better)", "latency", false}} {
		t := tableData{Title: group.title, ID: group.id, Rates: group.higher}
		for _, c := range cols {
			if c.HigherIsBetter == group.higher {
				t.Columns = append(t.Columns, c)
			}
		}
		if len(t.Columns) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// notes explain the marks the page uses.
func notes(cols []column, single bool) []string {
	has := map[string]bool{}
	for _, c := range cols {
		for _, cl := range c.Cells {
			has[cl.State] = true
			switch {
			case strings.HasPrefix(cl.VsFirst, "~"):
				has["same"] = true
			case strings.HasPrefix(cl.VsFirst, "?"):
				has["cannot_tell"] = true
			}
		}
		if c.BestShort {
			has["best_short"] = true
		}
		if c.NoWinner != "" {
			has["no_winner"] = true
		}
	}
	var out []string
	if !single {
		out = append(out, "Winners (★, bold, the winner row), the percentages and the marks follow one rule: a run wins a column "+
			"when Welch's t-test at 5 % calls its figure better than every other run's; ± and the error bars are each mean's 95 % "+
			"confidence interval (the rule, stated once: "+verdict.RuleRef+", linked below).")
	}
	if has["no_winner"] {
		out = append(out, "none: the rule crowns nobody in that column, and each chart says why (the difference is within the noise of the repeats, "+
			"or one figure a side cannot tell noise from a difference: -x 3 or more gives each run repeats).")
	}
	if has["same"] {
		out = append(out, compare.SameNote)
	}
	if has["cannot_tell"] {
		out = append(out, compare.CannotTellNote)
	}
	switch {
	case has[stateShort] && single:
		out = append(out, compare.ShortNote+" The regression check does not alarm on it.")
	case has[stateShort]:
		out = append(out, compare.ShortNote+" Its bar is drawn hollow; the regression check does not alarm on it.")
	}
	if has["best_short"] {
		out = append(out, "A winner marked * ran under 0.5 s: the rule crowned it, of low confidence.")
	}
	if has[stateTooFast] {
		out = append(out, "+++++: the test took under 0.5 s and the input (bonnie++'s own output) kept no figure.")
	}
	if has[stateUnknown] {
		out = append(out, "unknown: bonnie++ 1.98+/2.00a text reports print the file count where the file rates belong; give the CSV line to see them.")
	}
	return out
}
