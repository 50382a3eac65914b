package blockreport

import (
	"strconv"

	"github.com/clydebench/clyde/result"
)

// sustainedText is the sustained-load summary of each job (and group): the
// first minute against the settled rate, the worst minute, the drop, and
// what SNIA's rule and fio's criterion found.
func sustainedText(ew *errWriter, res *result.Block) {
	for _, s := range res.Sustained {
		ew.printf("sustained: %s (%d s)\n", s.Name, s.Samples)
		ew.printf("  first minute : %s IOPS", iopsText(s.FirstMinuteIOPS))
		if s.FirstMinuteS < minute {
			ew.printf(" (the run's first %d s)", s.FirstMinuteS)
		}
		ew.printf("\n")
		if s.Settled {
			ew.printf("  settled      : %s IOPS, from %d s to %d s (%s)\n", iopsText(s.SettledIOPS), s.SettleStartS, s.SettleStartS+s.SettleS, s.SettledBy)
		} else {
			ew.printf("  settled      : not reached; the last fifth of the run (%d s from %d s) ran at %s IOPS\n", s.SettleS, s.SettleStartS, iopsText(s.SettledIOPS))
		}
		ew.printf("  worst minute : %s IOPS from %d s\n", iopsText(s.WorstMinuteIOPS), s.WorstMinuteStartS)
		ew.printf("  drop         : %.1f%% from the first minute to the settled rate\n", s.DropPct)
		sn := s.SNIA
		switch {
		case sn.WindowStartRound < 0:
			ew.printf("  SNIA PTS     : %d round(s) of %d s; the rule needs %d\n", len(sn.RoundsIOPS), sn.RoundS, sn.Window)
		case sn.Attained:
			ew.printf("  SNIA PTS     : steady from round %d (%d rounds of %d s: range %.1f%% <= %.0f%%, slope %.1f%% <= %.0f%%)\n",
				sn.WindowStartRound+1, sn.Window, sn.RoundS, sn.DataExcursionPct, sn.DataLimitPct, sn.SlopeExcursionPct, sn.SlopeLimitPct)
		default:
			ew.printf("  SNIA PTS     : not steady (last window: range %.1f%% of %.0f%%, slope %.1f%% of %.0f%%)\n",
				sn.DataExcursionPct, sn.DataLimitPct, sn.SlopeExcursionPct, sn.SlopeLimitPct)
		}
		if f := s.Fio; f != nil {
			state := "not attained"
			if f.Attained {
				state = "attained"
			}
			ew.printf("  fio ss       : %s %s (window %d s from %d s, criterion %.4g)\n", f.SS, state, f.DurationS, f.StartS, f.Criterion)
		}
		if s.StoppedAtSteady {
			ew.printf("  stopped at steady state, before --runtime\n")
		}
	}
}

const minute = 60

// iopsText prints a rate in whole I/Os: the drop is read off these.
func iopsText(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
