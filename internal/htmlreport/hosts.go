package htmlreport

import (
	"fmt"
	"strings"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/result"
)

// hostsView is a many-client fs run's hosts: for each phase of its first
// iteration, a bar per host with the host's rate (its ranks' items over
// its slowest rank's time, result.JobHostRow), so a slow client stands out.
type hostsView struct {
	Run      string    `json:"run"`
	Launcher string    `json:"launcher"`
	Ranks    int       `json:"ranks"`
	Hosts    int       `json:"hosts"`
	Bars     []barData `json:"bars"`
}

// buildHosts makes the view of every run that ran across many clients.
func buildHosts(p *pageData, runs []*compare.Run) {
	for i, r := range runs {
		if r.FS == nil || r.FS.Job == nil || len(r.FS.Job.PerHost) == 0 {
			continue
		}
		j := r.FS.Job
		v := hostsView{Run: compare.RunLetter(i), Launcher: j.Launcher, Ranks: j.Ranks, Hosts: len(j.Hosts)}
		first := j.PerHost[0].Iteration
		var order []string
		byTest := map[string][]result.JobHostRow{}
		for _, h := range j.PerHost {
			if h.Iteration != first {
				continue
			}
			if _, ok := byTest[h.Test]; !ok {
				order = append(order, h.Test)
			}
			byTest[h.Test] = append(byTest[h.Test], h)
		}
		for _, test := range order {
			v.Bars = append(v.Bars, hostBars(i, v.Run, test, byTest[test], unitOf(j, test)))
		}
		p.Hosts = append(p.Hosts, v)
	}
}

// unitOf is the rate unit of a phase, as the job's phase rows give it.
func unitOf(j *result.FSJob, test string) string {
	for _, ph := range j.Phases {
		if ph.Test == test {
			return ph.RateUnit
		}
	}
	return ""
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
			br.Length, br.PctOfBest = h.RatePerSec/best, h.RatePerSec/best*100
			br.Best = h.RatePerSec == best
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
