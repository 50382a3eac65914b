// Package rankreport prints the part of a many-rank clyde block or clyde
// copy report that is the job's own: how many ranks on which hosts, each
// step's last-done and first-done rates, and every rank's and host's share.
package rankreport

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/result"
)

// Text writes j's section; the figures above it in a report are the
// ranks' sums.
func Text(w io.Writer, j *result.RankJob) error {
	ew := &errWriter{w: w}
	ew.printf("\nAll ranks: %d on %d host(s) (%s), each %s; the figures above are their sums\n", j.Ranks, len(j.Hosts), j.Launcher, filesText(j.Files))
	for _, p := range j.Phases {
		ew.printf("  step %d (%s): last done %s in %s, first done %s (rank %d at %s)\n", p.Iteration+1, p.Test,
			rate(p.LastDoneRate, p.RateUnit), secs(p.LastDoneNs), rate(p.FirstDoneRate, p.RateUnit), p.FirstRank, secs(p.FirstDoneNs))
		for _, r := range j.PerRank {
			if r.Iteration != p.Iteration {
				continue
			}
			mark := ""
			switch {
			case r.LastDone:
				mark = "  last done"
			case r.FirstDone:
				mark = "  first done"
			}
			ew.printf("    rank %d on %s (pid %d): %s %s, %s in %s%s\n", r.Rank, r.Host, r.PID, humanize.Comma(r.Items), itemsName(p.RateUnit), rate(r.RatePerSec, p.RateUnit), secs(r.ElapsedNs), mark)
		}
		if len(j.Hosts) < 2 {
			continue
		}
		for _, h := range j.PerHost {
			if h.Iteration == p.Iteration {
				ew.printf("    host %s: %d rank(s), %s %s, %s\n", h.Host, h.Ranks, humanize.Comma(h.Items), itemsName(p.RateUnit), rate(h.RatePerSec, p.RateUnit))
			}
		}
	}
	return ew.err
}

func filesText(files string) string {
	switch files {
	case "rank":
		return "on its own file (NAME.rankN)"
	case "host":
		return "on its host's block device"
	case "private-dir":
		return "in a private directory of its own"
	}
	return files
}

// itemsName is what a step's items are.
func itemsName(unit string) string {
	if unit == "IOPS" {
		return "I/Os"
	}
	return "files"
}

// rate is v in unit as the tools print it: whole IOPS, MB/s to 3 places.
func rate(v float64, unit string) string {
	if unit == "IOPS" {
		return humanize.CommafWithDigits(v, 0) + " IOPS"
	}
	return strconv.FormatFloat(v, 'f', 3, 64) + " " + unit
}

func secs(ns int64) string { return time.Duration(ns).Round(time.Millisecond).String() }

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
