package htmlreport

import (
	"fmt"
	"strings"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/result"
)

// hostsView is a many-client run's hosts: for each phase of an fs run's
// first iteration (each step of a block or copy run), a bar per host with the host's rate (its ranks' items over
// its slowest rank's time, result.JobHostRow), so a slow client stands out.
type hostsView struct {
	Run      string    `json:"run"`
	Launcher string    `json:"launcher"`
	Ranks    int       `json:"ranks"`
	Hosts    int       `json:"hosts"`
	Bars     []barData `json:"bars"`
}

// buildHosts makes the view of every run that ran across many clients:
// an fs run's phases of its first iteration, a block or copy run's every
// step (a group, a set with its method).
func buildHosts(p *pageData, runs []*compare.Run) {
	for i, r := range runs {
		var launcher string
		var ranks, hosts int
		var phases []result.JobPhase
		var rows []result.JobHostRow
		steps := false
		switch {
		case r.FS != nil && r.FS.Job != nil:
			j := r.FS.Job
			launcher, ranks, hosts, phases, rows = j.Launcher, j.Ranks, len(j.Hosts), j.Phases, j.PerHost
		case r.Block != nil && r.Block.Job != nil:
			j := r.Block.Job
			launcher, ranks, hosts, phases, rows, steps = j.Launcher, j.Ranks, len(j.Hosts), j.Phases, j.PerHost, true
		case r.Copy != nil && r.Copy.Job != nil:
			j := r.Copy.Job
			launcher, ranks, hosts, phases, rows, steps = j.Launcher, j.Ranks, len(j.Hosts), j.Phases, j.PerHost, true
		}
		if len(rows) == 0 {
			continue
		}
		v := hostsView{Run: compare.RunLetter(i), Launcher: launcher, Ranks: ranks, Hosts: hosts}
		first := rows[0].Iteration
		var order []string
		byTest := map[string][]result.JobHostRow{}
		units := map[string]string{}
		for _, ph := range phases {
			units[stepKey(ph.Iteration, ph.Test, steps)] = ph.RateUnit
		}
		for _, h := range rows {
			if h.Iteration != first && !steps {
				continue
			}
			key := stepKey(h.Iteration, h.Test, steps)
			if _, ok := byTest[key]; !ok {
				order = append(order, key)
			}
			byTest[key] = append(byTest[key], h)
		}
		for _, test := range order {
			v.Bars = append(v.Bars, hostBars(i, v.Run, test, byTest[test], units[test]))
		}
		p.Hosts = append(p.Hosts, v)
	}
}

// stepKey names a phase's bars: an fs phase by its test, a block or copy
// step by its number too (two groups may run jobs of one name).
func stepKey(iteration int, test string, steps bool) string {
	if !steps {
		return test
	}
	return fmt.Sprintf("step %d: %s", iteration+1, test)
}

func hostBars(run int, letter, test string, rows []result.JobHostRow, unit string) barData {
	b := barData{Key: "host:" + test, Title: test + " per host", Unit: unit, Better: "more is better"}
	var best float64
	for _, h := range rows {
		best = max(best, h.RatePerSec)
	}
	for _, h := range rows {
		ranks := "ranks"
		if h.Ranks == 1 {
			ranks = "rank"
		}
		br := bar{Run: run, Label: fmt.Sprintf("%s %s (%d %s)", letter, h.Host, h.Ranks, ranks), State: stateKnown,
			Value: h.RatePerSec, Text: rateText(h.RatePerSec, unit)}
		if best > 0 {
			// A share of the fastest host, and no star: one figure per
			// host, which the rule cannot judge (internal/verdict).
			br.Length, br.PctOfBest = h.RatePerSec/best, h.RatePerSec/best*100
		}
		b.Bars = append(b.Bars, br)
	}
	return b
}

// rateText prints a host's rate as the tables print rates: whole numbers.
func rateText(v float64, unit string) string {
	s := fmt.Sprintf("%.0f", v)
	if strings.HasSuffix(unit, "/s") && v < 10 {
		s = fmt.Sprintf("%.2f", v)
	}
	return s
}
