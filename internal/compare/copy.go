package compare

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clydebench/clyde/internal/copyreport"
	"github.com/clydebench/clyde/internal/verdict"
	"github.com/clydebench/clyde/result"
)

// clyde copy runs: their figures, the parameters that make two comparable,
// and the comparison table in the write-ups' shape (one row per run and
// method, one column per set).

func copyTarget(c result.CopyConfig) string { return copyreport.Target(c) }

// copyParams is the configuration without where it ran and its seed.
func copyParams(c result.CopyConfig) result.CopyConfig {
	c.Dir, c.To, c.Seed = "", "", 0
	return c
}

// copyKey names one set copied with one method: "readwrite Copy 100Mx1".
func copyKey(method, set string) string { return method + " " + copyreport.SetColumn(set) }

// copyFigures are, per set and method, MB/s (10^6 bytes/s), files/s and the
// p99 per-file latency of real copies, and the time of clones, which copy
// no data and have no rate to compare.
func copyFigures(c *result.Copy) []Figure {
	var out []Figure
	for _, f := range c.Results {
		if !f.Ran || f.Interrupted {
			continue
		}
		k := copyKey(f.Method, f.Set)
		if f.NotDataCopy {
			out = append(out, Figure{Key: k + " time (clone)", Unit: "ns", State: Known, Values: []float64{float64(f.ElapsedNs)}})
			continue
		}
		out = append(out,
			Figure{Key: k, Unit: "MB/s", HigherIsBetter: true, State: Known, Values: []float64{f.MBPerSec}},
			Figure{Key: k + " files/s", Unit: "files/s", HigherIsBetter: true, State: Known, Values: []float64{f.FilesPerSec}},
			Figure{Key: k + " p99 latency", Unit: "ns", State: Known, Values: []float64{float64(f.Latency.P99Ns)}})
	}
	return out
}

// copySummary is the first method's MB/s per set, for history listings.
func copySummary(c *result.Copy) string {
	var parts []string
	method := ""
	for _, f := range c.Results {
		if !f.Ran || f.Interrupted {
			continue
		}
		if method == "" {
			method = f.Method
		}
		if f.Method != method {
			continue
		}
		if f.NotDataCopy {
			parts = append(parts, fmt.Sprintf("%s %s (clone)", f.Set, formatNs(f.ElapsedNs)))
		} else {
			parts = append(parts, fmt.Sprintf("%s %s MB/s", f.Set, formatNumber(f.MBPerSec)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return method + " " + strings.Join(parts, ", ")
}

func formatNs(ns int64) string { return copyreport.FormatDuration(ns) }

// writeCopyText prints clyde copy runs as the write-ups do: a row per run
// and method, a column per set, MB/s, then files/s, each figure with its
// change against run A's same method and set; clones apart, as times.
func (t *Table) writeCopyText(w io.Writer) error {
	var b strings.Builder
	t.legend(&b)
	sets, methods := t.copyColumns()
	type rowFn func(f *result.CopyFigure) (float64, bool)
	digits, warm := 3, false
	// Labels are padded by hand so that only the figures are right-aligned.
	tw0, mw := 0, 0
	for i, r := range t.Runs {
		tw0 = max(tw0, len(runLetter(i))+1+len(r.Target()))
	}
	for _, m := range methods {
		mw = max(mw, len(m))
	}
	section := func(title string, value rowFn, clones bool) {
		width := max(len(title), tw0+2+mw)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%-*s\t", width, title)
		for _, s := range sets {
			fmt.Fprintf(tw, "%s\t%s\t", copyreport.SetColumn(s), "vs A")
		}
		fmt.Fprintln(tw)
		for _, m := range methods {
			if !t.copyMethodHas(m, clones) {
				continue
			}
			for i, r := range t.Runs {
				label := fmt.Sprintf("%-*s  %s", tw0, runLetter(i)+" "+r.Target(), m)
				fmt.Fprintf(tw, "%-*s\t", width, label)
				for _, s := range sets {
					f := r.Copy.Figure(s, m)
					v, ok := 0.0, f != nil && f.Ran && !f.Interrupted && f.NotDataCopy == clones
					if ok {
						v, ok = value(f)
					}
					if !ok {
						fmt.Fprint(tw, "-\t\t")
						continue
					}
					mark := ""
					if !clones && !f.SourcesCold() {
						mark, warm = "*", true
					}
					fmt.Fprintf(tw, "%s\t%s\t", copyCell(v, digits, clones)+mark, t.copyChange(i, s, m, v, clones, value))
				}
				fmt.Fprintln(tw)
			}
		}
		tw.Flush()
		b.WriteByte('\n')
	}
	section("MB/s (10^6 bytes/s)", func(f *result.CopyFigure) (float64, bool) { return f.MBPerSec, true }, false)
	digits = 1
	section("files/s", func(f *result.CopyFigure) (float64, bool) { return f.FilesPerSec, true }, false)
	if t.anyCopyClone() {
		b.WriteString("no data copied (clones share the source's extents): time per set, lower is faster\n")
		section("time", func(f *result.CopyFigure) (float64, bool) { return float64(f.ElapsedNs), true }, true)
	}
	if warm {
		b.WriteString("* the sources were still in the page cache (not cold) when this set was copied\n")
	}
	if t.copyJudged {
		b.WriteString("? marks every change: a copy run measures each set once, and one figure a side cannot tell noise from a difference (the rule: " + verdict.RuleRef + ")\n")
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// copyColumns lists every set and method of the runs in first-seen order.
func (t *Table) copyColumns() (sets, methods []string) {
	seenS, seenM := map[string]bool{}, map[string]bool{}
	for _, r := range t.Runs {
		for _, s := range r.Copy.Config.Sets {
			if !seenS[s.Name] {
				seenS[s.Name] = true
				sets = append(sets, s.Name)
			}
		}
		for _, f := range r.Copy.Results {
			if !seenM[f.Method] {
				seenM[f.Method] = true
				methods = append(methods, f.Method)
			}
		}
	}
	return sets, methods
}

// copyMethodHas says whether any run has a figure of method m of the kind
// (clone or real copy) a section shows.
func (t *Table) copyMethodHas(m string, clones bool) bool {
	for _, r := range t.Runs {
		for _, f := range r.Copy.Results {
			if f.Method == m && f.Ran && f.NotDataCopy == clones {
				return true
			}
		}
	}
	return false
}

func (t *Table) anyCopyClone() bool {
	for _, r := range t.Runs {
		for _, f := range r.Copy.Results {
			if f.Ran && f.NotDataCopy {
				return true
			}
		}
	}
	return false
}

// copyCell is a rate with digits decimals, as the run's own report
// prints it, or a clone's time.
func copyCell(v float64, digits int, clones bool) string {
	if clones {
		return formatNs(int64(v))
	}
	return fmt.Sprintf("%.*f", digits, v)
}

// copyChange is run i's change against run A for the same set and method,
// "" for run A itself or when A has no such figure.
func (t *Table) copyChange(i int, set, method string, v float64, clones bool, value func(*result.CopyFigure) (float64, bool)) string {
	if i == 0 {
		return ""
	}
	base := t.Runs[0].Copy.Figure(set, method)
	if base == nil || !base.Ran || base.NotDataCopy != clones {
		return ""
	}
	bv, ok := value(base)
	if !ok || bv == 0 {
		return ""
	}
	t.copyJudged = true
	return verdict.Compare([]float64{bv}, []float64{v}).PctText()
}
