package blockreport

import (
	"time"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/result"
)

// ranksText is a many-rank run's own part: how many ranks on which hosts,
// then each group's last-done and first-done rates, every rank's and
// every host's share. The jobs above it are the ranks' sums.
func ranksText(ew *errWriter, j *result.BlockRanks) {
	files := "its own file (NAME.rankN)"
	if j.Files == "host" {
		files = "its host's block device"
	}
	ew.printf("\nAll ranks: %d on %d host(s) (%s), each on %s; the jobs above are their sums\n", j.Ranks, len(j.Hosts), j.Launcher, files)
	for _, p := range j.Phases {
		ew.printf("  group %d (%s): last done %s IOPS in %s, first done %s IOPS (rank %d at %s)\n", p.Iteration+1, p.Test,
			humanize.CommafWithDigits(p.LastDoneRate, 0), secs(p.LastDoneNs), humanize.CommafWithDigits(p.FirstDoneRate, 0), p.FirstRank, secs(p.FirstDoneNs))
		for _, r := range j.PerRank {
			if r.Iteration != p.Iteration {
				continue
			}
			mark := ""
			if r.LastDone {
				mark = "  last done"
			} else if r.FirstDone {
				mark = "  first done"
			}
			ew.printf("    rank %d on %s (pid %d): %s I/Os, %s IOPS in %s%s\n", r.Rank, r.Host, r.PID, humanize.Comma(r.Items), humanize.CommafWithDigits(r.RatePerSec, 0), secs(r.ElapsedNs), mark)
		}
		for _, h := range j.PerHost {
			if h.Iteration == p.Iteration && len(j.Hosts) > 1 {
				ew.printf("    host %s: %d rank(s), %s I/Os, %s IOPS\n", h.Host, h.Ranks, humanize.Comma(h.Items), humanize.CommafWithDigits(h.RatePerSec, 0))
			}
		}
	}
}

func secs(ns int64) string { return time.Duration(ns).Round(time.Millisecond).String() }
