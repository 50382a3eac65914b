package htmlreport

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
)

// Horizontal bar charts in the manner of OpenBenchmarking.org's result
// pages: one bar per run, labelled with the run, its figure printed at the
// end of the bar with the error bar of its 95 % confidence interval, the
// rule's winner marked and every other run's figure as a percentage of
// the winner's (internal/verdict; where it crowns nobody, no star and no
// percentages, and the caption says why). They are drawn as SVG by hand (not gonum/plot) so
// that each bar carries its run and value as data attributes and its text
// is exactly the figure the tables print.

// Bar chart geometry, in SVG user units (pixels at 100%).
const (
	barLabelW = 190 // run labels, right-aligned before the bars
	barAreaW  = 290 // the longest bar
	barTextW  = 150 // the figure and percentage after a bar
	barRowH   = 26
	barH      = 18
	barPad    = 6
)

// svgEscape escapes text for SVG inside HTML.
func svgEscape(s string) string { return template.HTMLEscapeString(s) }

// barChart draws b's bars; extra, when not nil, is a second text for bar
// i after its figure (the summary's "best in 7 of 12").
func barChart(b barData, extra func(i int) string) template.HTML {
	w := barLabelW + barAreaW + barTextW + 40 // room for a ± after the figure
	if extra != nil {
		w += 120 // room for the extra text
	}
	h := len(b.Bars)*barRowH + barPad
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="bars" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, w, h, w, h, svgEscape(b.Title))
	// The axis: where every bar starts.
	fmt.Fprintf(&s, `<line x1="%d" y1="0" x2="%d" y2="%d" class="axis"/>`, barLabelW, barLabelW, h)
	for i, br := range b.Bars {
		y := i*barRowH + barPad
		fmt.Fprintf(&s, `<g class="bar" data-run="%s" data-state="%s" data-value="%s" data-text="%s"`,
			svgEscape(letterOf(br.Label)), br.State, strconv.FormatFloat(br.Value, 'g', -1, 64), svgEscape(br.Text))
		if br.Best {
			s.WriteString(` data-best="true"`)
		}
		s.WriteString(">")
		fmt.Fprintf(&s, `<title>%s: %s</title>`, svgEscape(br.Label), svgEscape(barTooltip(b, br)))
		fmt.Fprintf(&s, `<text class="label" x="%d" y="%d">%s</text>`, barLabelW-8, y+barH-5, svgEscape(br.Label))
		color := runHex(br.Run)
		switch br.State {
		case stateKnown, stateShort:
			length := max(br.Length*barAreaW, 1)
			style := fmt.Sprintf(`fill="%s"`, color)
			if br.State == stateShort {
				// Hollow and dashed: measured, under 0.5 s.
				style = fmt.Sprintf(`fill="#ffffff" stroke="%s" stroke-width="2" stroke-dasharray="5 3"`, color)
			}
			fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%.1f" height="%d" %s/>`, barLabelW, y, length, barH, style)
			end := float64(barLabelW) + length
			if br.Hi > 0 {
				// The error bar: the mean's 95 % confidence interval.
				lo, hi := float64(barLabelW)+br.Lo*barAreaW, float64(barLabelW)+br.Hi*barAreaW
				mid := y + barH/2
				fmt.Fprintf(&s, `<path class="ci" d="M%.1f %dH%.1fM%.1f %dV%dM%.1f %dV%d" stroke="#222" stroke-width="1.2" fill="none"/>`,
					lo, mid, hi, lo, mid-4, mid+4, hi, mid-4, mid+4)
				end = max(end, hi)
			}
			tx := end + 6
			cls := "value"
			if br.Best {
				cls += " best"
			}
			rel := ""
			switch {
			case extra != nil:
				rel = extra(i)
			case br.Best && len(b.Bars) > 1:
				rel = "★ best"
			case br.PctOfBest > 0:
				rel = fmt.Sprintf("%.1f%%", br.PctOfBest)
			}
			text := br.Text
			if br.CIText != "" {
				text += " " + br.CIText
			}
			fmt.Fprintf(&s, `<text class="%s" x="%.1f" y="%d"><tspan class="num">%s</tspan>`, cls, tx, y+barH-5, svgEscape(text))
			if rel != "" {
				fmt.Fprintf(&s, `<tspan class="rel" dx="8">%s</tspan>`, svgEscape(rel))
			}
			s.WriteString("</text>")
		default:
			fmt.Fprintf(&s, `<text class="missing" x="%d" y="%d">%s</text>`, barLabelW+6, y+barH-5, svgEscape(missingText(br.State)))
		}
		s.WriteString("</g>")
	}
	s.WriteString("</svg>")
	return template.HTML(s.String())
}

// letterOf is the run letter a bar label starts with.
func letterOf(label string) string {
	l, _, _ := strings.Cut(label, " ")
	return l
}

func barTooltip(b barData, br bar) string {
	switch br.State {
	case stateKnown, stateShort:
		t := br.Text + " " + b.Unit
		if br.CIText != "" {
			t = br.Text + " " + br.CIText + " " + b.Unit + " (95 % confidence interval)"
		}
		if br.PctOfBest > 0 && !br.Best {
			t += fmt.Sprintf(", %.1f%% of the best", br.PctOfBest)
		}
		if br.State == stateShort {
			t += ", ran under 0.5 s (low confidence)"
		}
		return t
	}
	return missingText(br.State)
}

func missingText(state string) string {
	switch state {
	case stateTooFast:
		return "+++++ under 0.5 s, no figure kept"
	case stateUnknown:
		return "unknown (2.00a text report without its CSV line)"
	}
	return "not run"
}
