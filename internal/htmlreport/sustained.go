package htmlreport

import (
	"fmt"
	"image/color"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/clydebench/clyde/result"
)

// sustainedView is what the sustained chart draws for one entry of
// res.Sustained: IOPS second by second, the settled level across the
// settled window, the window's edges, and the worst minute.
type sustainedView struct {
	series  plotter.XYs
	settled plotter.XYs // two points: the level across the window
	edges   []plotter.XYs
	worst   plotter.XYs
	label   string // what decided the window ("SNIA PTS", "fio ss=...", or "not settled: last fifth")
}

// sustainedSeries is the entry's per-second IOPS: its job's, or its group's
// jobs' summed slot by slot.
func sustainedSeries(b *result.Block, s *result.BlockSustained) []float64 {
	var jobs []int
	switch {
	case s.Job >= 0 && s.Job < len(b.Jobs):
		jobs = []int{s.Job}
	case s.Job < 0 && s.Group < len(b.Groups):
		jobs = b.Groups[s.Group].Jobs
	}
	var out []float64
	for _, ji := range jobs {
		if ji >= len(b.Jobs) {
			continue
		}
		series := b.Jobs[ji].Series
		if n := len(series); n > 1 && series[n-1].DurationNs < int64(time.Second)/2 {
			series = series[:n-1] // a closing sliver's rate is noise, as the analysis drops it
		}
		for k, smp := range series {
			if k >= len(out) {
				out = append(out, 0)
			}
			out[k] += smp.IOPS
		}
	}
	return out
}

func viewOf(b *result.Block, s *result.BlockSustained) (sustainedView, bool) {
	iops := sustainedSeries(b, s)
	if len(iops) < 2 {
		return sustainedView{}, false
	}
	v := sustainedView{series: make(plotter.XYs, len(iops))}
	for i, y := range iops {
		v.series[i] = plotter.XY{X: float64(i), Y: y}
	}
	from, to := float64(s.SettleStartS), float64(s.SettleStartS+s.SettleS)
	v.settled = plotter.XYs{{X: from, Y: s.SettledIOPS}, {X: to, Y: s.SettledIOPS}}
	top := 0.0
	for _, y := range iops {
		top = max(top, y)
	}
	for _, x := range []float64{from, to} {
		v.edges = append(v.edges, plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
	}
	if s.Samples > 0 {
		w := float64(min(s.FirstMinuteS, 60))
		if s.Samples >= 60 {
			w = 60
		}
		v.worst = plotter.XYs{{X: float64(s.WorstMinuteStartS), Y: s.WorstMinuteIOPS}, {X: float64(s.WorstMinuteStartS) + w, Y: s.WorstMinuteIOPS}}
	}
	switch {
	case !s.Settled:
		v.label = "not settled: last fifth"
	case s.SettledBy == "fio" && s.Fio != nil:
		v.label = "fio ss=" + s.Fio.SS
	default:
		v.label = "SNIA PTS"
	}
	return v, true
}

// sustainedChart draws a view: the series in grey, the settled level in
// red between the window's dashed edges, the worst minute in blue.
func sustainedChart(v sustainedView) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = "second"
	p.Y.Label.Text = "IOPS"
	p.Y.Min = 0
	add := func(name string, xy plotter.XYs, c color.Color, width vg.Length, dashed bool) error {
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color, l.Width = c, width
		if dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
		if name != "" {
			p.Legend.Add(name, l)
		}
		return nil
	}
	if err := add("IOPS per second", v.series, color.Gray{Y: 120}, vg.Points(1), false); err != nil {
		return nil, err
	}
	for i, e := range v.edges {
		name := ""
		if i == 0 {
			name = "settled window"
		}
		if err := add(name, e, color.RGBA{R: 200, A: 255}, vg.Points(1), true); err != nil {
			return nil, err
		}
	}
	if v.worst != nil {
		if err := add("worst minute", v.worst, color.RGBA{B: 220, A: 255}, vg.Points(2.5), false); err != nil {
			return nil, err
		}
	}
	if err := add("settled ("+v.label+")", v.settled, color.RGBA{R: 220, A: 255}, vg.Points(2.5), false); err != nil {
		return nil, err
	}
	// Room above the series for the legend.
	top := 0.0
	for _, xy := range v.series {
		top = max(top, xy.Y)
	}
	p.Y.Max = top * 1.35
	p.Legend.Top = true
	return p, nil
}

// sustainedCharts are a run's sustained charts, named for the page.
func sustainedCharts(prefix string, b *result.Block) ([]namedPlot, error) {
	var out []namedPlot
	for i := range b.Sustained {
		s := &b.Sustained[i]
		v, ok := viewOf(b, s)
		if !ok {
			continue
		}
		title := fmt.Sprintf("%s %s: sustained load, drop %.1f%%", prefix, s.Name, s.DropPct)
		p, err := sustainedChart(v)
		if err != nil {
			return nil, fmt.Errorf("chart %q: %w", title, err)
		}
		out = append(out, namedPlot{title, p})
	}
	return out, nil
}
