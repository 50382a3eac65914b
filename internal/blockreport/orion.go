package blockreport

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// ORION's files, one set (one small I/O size) at a time, in the layout
// ORION 11.1/12c writes them: the CSVs are matrices with a first column of
// width 11 ("Large/Small", then the large load) and every further column
// ", " plus a value of width 6, rows ending after their last data point;
// _iops.csv and _lat.csv have a column per small load above 0 and a row per
// large load, _mbps.csv a column per small load and a row per large load
// above 0. Latency is in microseconds (ORION 11.1 printed milliseconds,
// 12c microseconds), MBPS in MiB/s.

// A point cut short (^C) is written with partialMark after its figure, in
// the same width, so that no reader takes it for a whole point; the summary
// and the trace say what the mark means.
const partialMark = "*"

// OrionIOPSCSV writes _iops.csv: small-I/O IOPS.
func OrionIOPSCSV(w io.Writer, s *result.OrionSet) error {
	return orionMatrix(w, s, false, func(p *result.OrionPoint) (string, bool) {
		if p.Partial {
			return fmt.Sprintf("%6d%s", int64(math.Round(p.SmallIOPS)), partialMark), p.Small > 0
		}
		return fmt.Sprintf("%7d", int64(math.Round(p.SmallIOPS))), p.Small > 0
	})
}

// OrionMBPSCSV writes _mbps.csv: large-I/O MB/s.
func OrionMBPSCSV(w io.Writer, s *result.OrionSet) error {
	return orionMatrix(w, s, true, func(p *result.OrionPoint) (string, bool) {
		if p.Partial {
			return fmt.Sprintf("%6.2f%s", p.LargeMBPS, partialMark), p.Large > 0
		}
		return fmt.Sprintf("%7.2f", p.LargeMBPS), p.Large > 0
	})
}

// OrionLatCSV writes _lat.csv: small-I/O mean latency in microseconds.
func OrionLatCSV(w io.Writer, s *result.OrionSet) error {
	return orionMatrix(w, s, false, func(p *result.OrionPoint) (string, bool) {
		if p.Partial {
			return fmt.Sprintf("%6.2f%s", p.SmallLatUs, partialMark), p.Small > 0
		}
		return fmt.Sprintf("%7.2f", p.SmallLatUs), p.Small > 0
	})
}

// partialLines say which points were cut short and what their mark in the
// CSV files means.
func partialLines(ew *errWriter, s *result.OrionSet) {
	for _, p := range s.Points {
		if p.Partial {
			ew.printf("Data point Small=%d and Large=%d was cut short (interrupted) after %.1f s: its figures, marked %s in the CSV files, are over that time and are left out of the lines above\n",
				p.Small, p.Large, float64(p.ElapsedNs)/1e9, partialMark)
		}
	}
}

// orionMatrix writes one CSV: large loads down, small loads across. mbps
// selects _mbps.csv's axes (every small load across, large loads above 0
// down); otherwise small loads above 0 across and every large load down.
func orionMatrix(w io.Writer, s *result.OrionSet, mbps bool, cell func(*result.OrionPoint) (string, bool)) error {
	ew := &errWriter{w: w}
	cols, rows := s.SmallLoads, s.LargeLoads
	if mbps {
		rows = above0(rows)
	} else {
		cols = above0(cols)
	}
	at := map[[2]int]*result.OrionPoint{}
	for i := range s.Points {
		p := &s.Points[i]
		at[[2]int{p.Small, p.Large}] = p
	}
	ew.printf("Large/Small")
	for _, c := range cols {
		ew.printf(",%7d", c)
	}
	ew.printf("\n")
	for _, r := range rows {
		var cells []string
		last := -1
		for i, c := range cols {
			v := strings.Repeat(" ", 7)
			if p := at[[2]int{c, r}]; p != nil {
				if text, ok := cell(p); ok {
					v, last = text, i
				}
			}
			cells = append(cells, v)
		}
		ew.printf("%11d", r)
		for _, c := range cells[:last+1] {
			ew.printf(",%s", c)
		}
		ew.printf("\n")
	}
	return ew.err
}

func above0(v []int) []int {
	var out []int
	for _, x := range v {
		if x > 0 {
			out = append(out, x)
		}
	}
	return out
}

// orionPeaks are the summary's closing figures; ok false when the set has
// no point of that kind.
type orionPeaks struct {
	maxMBPS, maxIOPS, minLat       float64
	atMBPS, atIOPS, atLat          *result.OrionPoint
	hasLarge, hasSmall, hasLatency bool
}

func peaksOf(s *result.OrionSet) orionPeaks {
	var pk orionPeaks
	for i := range s.Points {
		p := &s.Points[i]
		if p.Partial {
			continue // not a whole point
		}
		if p.Large > 0 && (!pk.hasLarge || p.LargeMBPS > pk.maxMBPS) {
			pk.maxMBPS, pk.atMBPS, pk.hasLarge = p.LargeMBPS, p, true
		}
		if p.Small > 0 && (!pk.hasSmall || p.SmallIOPS > pk.maxIOPS) {
			pk.maxIOPS, pk.atIOPS, pk.hasSmall = p.SmallIOPS, p, true
		}
		if p.Small > 0 && p.SmallLatUs > 0 && (!pk.hasLatency || p.SmallLatUs < pk.minLat) {
			pk.minLat, pk.atLat, pk.hasLatency = p.SmallLatUs, p, true
		}
	}
	return pk
}

// orionHeader is the summary's and the trace's description of the test.
func orionHeader(ew *errWriter, res *result.Block, o *result.Orion, s *result.OrionSet) {
	ew.printf("ORION VERSION clyde %s\n\n", res.Provenance.Version)
	ew.printf("Commandline:\n%s\n\n", o.Command)
	ew.printf("This maps to this test:\n")
	ew.printf("Test: %s\n", o.TestName)
	ew.printf("Small IO size: %d KB\n", s.SizeSmallKiB)
	ew.printf("Large IO size: %d KB\n", o.SizeLargeKiB)
	var types []string
	small, large := false, false
	for _, p := range s.Points {
		small, large = small || p.Small > 0, large || p.Large > 0
	}
	if small || len(s.Points) == 0 {
		types = append(types, "Small Random IOs")
	}
	if large || len(s.Points) == 0 {
		if o.Type == "seq" {
			types = append(types, "Large Sequential Streams")
		} else {
			types = append(types, "Large Random IOs")
		}
	}
	ew.printf("IO Types: %s\n", strings.Join(types, ", "))
	if o.Type == "seq" {
		ew.printf("Number of Concurrent IOs Per Stream: %d\n", o.NumStreamIO)
	}
	ew.printf("Simulated Array Type: %s\n", strings.ToUpper(o.Simulate))
	if o.StripeKiB > 0 {
		ew.printf("Stripe Depth: %d KB\n", o.StripeKiB)
	}
	ew.printf("Write: %d%%\n", o.WritePct)
	if o.CacheSizeMiB < 0 {
		ew.printf("Cache Size: Not Entered\n")
	} else {
		ew.printf("Cache Size: %d MB\n", o.CacheSizeMiB)
	}
	ew.printf("Duration for each Data Point: %s seconds\n", pointSeconds(res, s))
	ew.printf("Small Columns:")
	for _, c := range s.SmallLoads {
		ew.printf(",%7d", c)
	}
	ew.printf("\nLarge Columns:")
	for _, r := range s.LargeLoads {
		ew.printf(",%7d", r)
	}
	ew.printf("\nTotal Data Points: %d\n\n", len(s.Points))
	for _, l := range o.LUNs {
		ew.printf("Name: %s\tSize: %d\n", l.Path, l.SizeBytes)
	}
	ew.printf("%d FILEs found.\n", len(o.LUNs))
}

// pointSeconds is the configured duration of a point, as ORION prints it (whole
// seconds, or the exact figure for clyde block's sub-second runtimes).
func pointSeconds(res *result.Block, s *result.OrionSet) string {
	for _, p := range s.Points {
		if len(p.Jobs) > 0 && p.Jobs[0] < len(res.Jobs) {
			ns := res.Jobs[p.Jobs[0]].Config.RuntimeNs
			return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", float64(ns)/1e9), "0"), ".")
		}
	}
	return fmt.Sprint(res.Orion.DurationS)
}

// OrionSummary writes _summary.txt: the command, the test it maps to, the
// LUNs, then ORION's closing lines: maximum large MBPS, maximum small IOPS,
// minimum small latency, each with the point it was seen at.
func OrionSummary(w io.Writer, res *result.Block, set int) error {
	ew := &errWriter{w: w}
	o := res.Orion
	s := &o.Sets[set]
	orionHeader(ew, res, o, s)
	ew.printf("\n")
	orionPeakLines(ew, s)
	partialLines(ew, s)
	return ew.err
}

// orionText is clyde report's text for an ORION run: each set's summary.
func orionText(ew *errWriter, res *result.Block) {
	for i := range res.Orion.Sets {
		if i > 0 {
			ew.printf("\n")
		}
		if ew.err == nil {
			ew.err = OrionSummary(ew.w, res, i)
		}
	}
}

// OrionPeaks writes the summary's closing lines alone, for the terminal.
func OrionPeaks(w io.Writer, s *result.OrionSet) error {
	ew := &errWriter{w: w}
	orionPeakLines(ew, s)
	partialLines(ew, s)
	return ew.err
}

func orionPeakLines(ew *errWriter, s *result.OrionSet) {
	pk := peaksOf(s)
	if pk.hasLarge {
		ew.printf("Maximum Large MBPS=%.2f @ Small=%d and Large=%d\n", pk.maxMBPS, pk.atMBPS.Small, pk.atMBPS.Large)
	}
	if pk.hasSmall {
		ew.printf("Maximum Small IOPS=%.0f @ Small=%d and Large=%d\n", pk.maxIOPS, pk.atIOPS.Small, pk.atIOPS.Large)
	}
	if pk.hasLatency {
		ew.printf("Minimum Small Latency=%.2f usecs @ Small=%d and Large=%d\n", pk.minLat, pk.atLat.Small, pk.atLat.Large)
	}
}

// OrionTrace writes _trace.txt: the test's description, then every data
// point as it ran, with what ORION lacks: latency percentiles per direction.
func OrionTrace(w io.Writer, res *result.Block, set int) error {
	ew := &errWriter{w: w}
	o := res.Orion
	s := &o.Sets[set]
	orionHeader(ew, res, o, s)
	ew.printf("\nTEST START\n")
	for i := range s.Points {
		p := &s.Points[i]
		ew.printf("\nPoint %d (small=%d, large=%d) of %d\n", i+1, p.Small, p.Large, len(s.Points))
		if p.Small > 0 {
			ew.printf("Small: %.0f IOPS, %.2f us mean latency\n", p.SmallIOPS, p.SmallLatUs)
			traceLat(ew, "  read ", p.SmallRead)
			traceLat(ew, "  write", p.SmallWrite)
		}
		if p.Large > 0 {
			ew.printf("Large: %.2f MBPS, %.0f IOPS\n", p.LargeMBPS, p.LargeIOPS)
			traceLat(ew, "  read ", p.LargeRead)
			traceLat(ew, "  write", p.LargeWrite)
		}
		var jobs []string
		for _, j := range p.Jobs {
			if j < len(res.Jobs) {
				c := res.Jobs[j].Config
				jobs = append(jobs, fmt.Sprintf("%s bs=%d iodepth=%d numjobs=%d ioengine=%s", c.RW, c.BSBytes, c.IODepth, c.NumJobs, c.IOEngine))
			}
		}
		ew.printf("Elapsed: %.3f s; jobs: %s\n", float64(p.ElapsedNs)/1e9, strings.Join(jobs, "; "))
		if p.Partial {
			ew.printf("Cut short (interrupted): marked %s in the CSV files\n", partialMark)
		}
	}
	if want := len(s.Points); res.Interrupted {
		whole := 0
		for _, p := range s.Points {
			if !p.Partial {
				whole++
			}
		}
		ew.printf("\nTEST INTERRUPTED after %d data points (%d whole)\n", want, whole)
	} else {
		ew.printf("\nTEST END\n")
	}
	for _, n := range res.Notes {
		ew.printf("note: %s\n", n)
	}
	return ew.err
}

// traceLat is one direction's latency line in microseconds.
func traceLat(ew *errWriter, name string, l *result.LatNs) {
	if l == nil || l.N == 0 {
		return
	}
	ew.printf("%s: %d I/Os, lat us: min=%.2f avg=%.2f max=%.2f stdev=%.2f", name, l.N, us(l.Min), l.Mean/1e3, us(l.Max), l.Stddev/1e3)
	for _, pc := range []float64{50, 90, 99, 99.9} {
		if v, ok := l.Percentile.At(pc); ok {
			ew.printf(" p%g=%.2f", pc, us(v))
		}
	}
	ew.printf("\n")
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

// orionHistEdgesUs are _hist.txt's bucket bounds in microseconds: powers of
// two from 8 us to 2^20 us (about 1 s), then everything longer.
var orionHistEdgesUs = func() []int64 {
	var e []int64
	for us := int64(8); us <= 1<<20; us *= 2 {
		e = append(e, us)
	}
	return e
}()

// OrionHist writes _hist.txt, ORION 12c's latency histograms per data point
// for small and large reads and writes. No copy of ORION's own file was
// found to take its layout from, so the layout is clyde's and its first
// line says so: per point and kind, the I/O count, then each bucket from
// the first to the last that holds any, "< N" usecs with its count and
// share of the I/Os.
// The buckets come from the point's merged latency histograms.
func OrionHist(w io.Writer, res *result.Block, set int) error {
	ew := &errWriter{w: w}
	s := &res.Orion.Sets[set]
	ew.printf("ORION latency histograms, %s (layout clyde's: ORION 12c writes this file, and no copy of one was found to follow)\n", s.Prefix)
	edgesNs := make([]int64, len(orionHistEdgesUs))
	for i, e := range orionHistEdgesUs {
		edgesNs[i] = e * 1000
	}
	for i := range s.Points {
		p := &s.Points[i]
		mark := ""
		if p.Partial {
			mark = " " + partialMark + " (cut short)"
		}
		// The point's jobs: the small workload first (when it has small
		// I/Os), then the large one or each stream; their histograms.
		var small, large []int
		for n, j := range p.Jobs {
			if n == 0 && p.Small > 0 {
				small = append(small, j)
			} else {
				large = append(large, j)
			}
		}
		for _, k := range []struct {
			name string
			jobs []int
			dir  func(*result.BlockJob) result.LatNs
		}{
			{"Small reads", small, func(j *result.BlockJob) result.LatNs { return j.Read.Lat }},
			{"Small writes", small, func(j *result.BlockJob) result.LatNs { return j.Write.Lat }},
			{"Large reads", large, func(j *result.BlockJob) result.LatNs { return j.Read.Lat }},
			{"Large writes", large, func(j *result.BlockJob) result.LatNs { return j.Write.Lat }},
		} {
			r := latency.New()
			var ios int64
			kept := true
			for _, j := range k.jobs {
				if j >= len(res.Jobs) {
					continue
				}
				l := k.dir(&res.Jobs[j])
				if l.N == 0 {
					continue
				}
				ios += l.N
				jr, err := l.Recorder()
				if err != nil {
					kept = false // a result saved without its histograms
					continue
				}
				r.Merge(jr)
			}
			if ios == 0 {
				continue
			}
			if !kept {
				ew.printf("\nData point Small=%d Large=%d%s: %s, %d I/Os: no histogram in this result\n", p.Small, p.Large, mark, k.name, ios)
				continue
			}
			counts := r.CountsBelow(edgesNs)
			first, last := -1, -1
			for b, c := range counts {
				if c > 0 {
					if first < 0 {
						first = b
					}
					last = b
				}
			}
			n := r.Count()
			ew.printf("\nData point Small=%d Large=%d%s: %s, %d I/Os, latency in usecs\n", p.Small, p.Large, mark, k.name, n)
			for b := first; b >= 0 && b <= last; b++ {
				label := fmt.Sprintf("< %d", orionHistEdgesUs[min(b, len(orionHistEdgesUs)-1)])
				if b == len(orionHistEdgesUs) {
					label = fmt.Sprintf(">= %d", orionHistEdgesUs[len(orionHistEdgesUs)-1])
				}
				ew.printf("  %-10s %12d %7.2f%%\n", label, counts[b], float64(counts[b])*100/float64(n))
			}
		}
	}
	return ew.err
}
