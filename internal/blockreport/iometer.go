package blockreport

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/clydebench/clyde/result"
)

// iometerText is an Iometer-style run: the setup, one line per test with
// the Results Display's figures under its names, then the latency bins
// (those with any I/O; the CSV and JSON have all 21).
func iometerText(ew *errWriter, res *result.Block) {
	io := res.Iometer
	what := io.Source
	if io.Description != "" {
		what = io.Description + " (" + io.Source + ")"
	}
	ew.printf("Iometer-style run: %s on %s\n", what, res.Target.ResolvedPath)
	ew.printf("Run Time %s, Ramp Up Time %s", seconds(io.RunTimeNs), seconds(io.RampTimeNs))
	if io.Cycling != "" {
		ew.printf(", cycling %s", io.Cycling)
	}
	ew.printf("; response times in ms, MBps in 10^6 (Decimal) and 2^20 (Binary) bytes/s\n\n")
	w := len("Access Specification")
	for _, t := range io.Tests {
		w = max(w, len(t.AccessSpec))
	}
	ew.printf("%-*s %7s %11s %11s %10s %10s %25s %9s %26s %26s %6s %6s\n", w, "", "", "# of Out-", "Total I/Os", "Read", "Write",
		"MBps (Decimal)", "MBps", "Average Response Time", "Maximum Response Time", "% CPU", "Total")
	ew.printf("%-*s %7s %11s %11s %10s %10s %8s %8s %8s %9s %8s %8s %8s %8s %8s %8s %6s %6s\n", w, "Access Specification",
		"Workers", "standing", "per Second", "IOps", "IOps", "Total", "Read", "Write", "(Binary)", "Total", "Read", "Write",
		"Total", "Read", "Write", "Util.", "Errors")
	for _, t := range io.Tests {
		cpu := "n/a"
		if t.CPUKnown {
			cpu = strconv.FormatFloat(t.CPUPct, 'f', 2, 64)
		}
		ew.printf("%-*s %7d %11d %11.2f %10.2f %10.2f %8.2f %8.2f %8.2f %9.2f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %6s %6d\n", w,
			t.AccessSpec, t.Workers, t.OutstandingIOs, t.IOPS, t.ReadIOPS, t.WriteIOPS, t.MBpsDecimal, t.ReadMBpsDecimal,
			t.WriteMBpsDecimal, t.MBpsBinary, t.AvgResponseMs, t.AvgReadResponseMs, t.AvgWriteResponseMs, t.MaxResponseMs,
			t.MaxReadResponseMs, t.MaxWriteResponseMs, cpu, t.Errors)
	}
	used := usedBins(io.Tests)
	if len(used) > 0 {
		ew.printf("\nI/Os per response time bin:\n%-*s", w, "Access Specification")
		for _, b := range used {
			ew.printf(" %13s", result.IometerLatencyBins[b].Label)
		}
		ew.printf("\n")
		for _, t := range io.Tests {
			ew.printf("%-*s", w, t.AccessSpec)
			for _, b := range used {
				ew.printf(" %13d", t.LatencyBins[b])
			}
			ew.printf("\n")
		}
	}
	ew.printf("\n%% CPU Utilization: %s.\n", io.CPUScope)
	for _, s := range io.Ignored {
		ew.printf("ignored: %s\n", s)
	}
}

// usedBins are the bins any test counted an I/O in.
func usedBins(tests []result.BlockIometerTest) []int {
	var out []int
	for b := range result.IometerLatencyBins {
		for _, t := range tests {
			if b < len(t.LatencyBins) && t.LatencyBins[b] > 0 {
				out = append(out, b)
				break
			}
		}
	}
	return out
}

func seconds(ns int64) string { return time.Duration(ns).String() }

// iometerColumns are the columns of Iometer's results.csv clyde fills, under
// Iometer's names (src/Manager.cpp, src/GalileoView.cpp), in its order:
// the network, transaction and raw-timer columns are left out.
var iometerColumns = []string{"Target Type", "Target Name", "Access Specification Name", "# Managers", "# Workers", "# Disks",
	"IOps", "Read IOps", "Write IOps", "MBps (Binary)", "Read MBps (Binary)", "Write MBps (Binary)",
	"MBps (Decimal)", "Read MBps (Decimal)", "Write MBps (Decimal)",
	"Average Response Time", "Average Read Response Time", "Average Write Response Time",
	"Maximum Response Time", "Maximum Read Response Time", "Maximum Write Response Time",
	"Errors", "Bytes Read", "Bytes Written", "Read I/Os", "Write I/Os",
	"Starting Sector", "Maximum Size", "Queue Depth", "% CPU Utilization", "% User Time", "% Privileged Time",
	"CPU Effectiveness"}

// iometerCSV writes one "ALL" line per test, as Iometer's results file sums
// every worker of a test.
func iometerCSV(w io.Writer, res *result.Block) error {
	cw := csv.NewWriter(w)
	header := append([]string(nil), iometerColumns...)
	for _, b := range result.IometerLatencyBins {
		header = append(header, b.Label)
	}
	_ = cw.Write(header)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	for _, t := range res.Iometer.Tests {
		cpu, usr, sys, eff := "", "", "", ""
		if t.CPUKnown {
			cpu, usr, sys = f(t.CPUPct), f(t.CPUUserPct), f(t.CPUPrivilegedPct)
			if t.CPUPct > 0 {
				eff = f(t.IOPS / t.CPUPct)
			}
		}
		row := []string{"ALL", "All", t.AccessSpec, "1", itoa(t.Workers), "1",
			f(t.IOPS), f(t.ReadIOPS), f(t.WriteIOPS), f(t.MBpsBinary), f(t.ReadMBpsBinary), f(t.WriteMBpsBinary),
			f(t.MBpsDecimal), f(t.ReadMBpsDecimal), f(t.WriteMBpsDecimal),
			f(t.AvgResponseMs), f(t.AvgReadResponseMs), f(t.AvgWriteResponseMs),
			f(t.MaxResponseMs), f(t.MaxReadResponseMs), f(t.MaxWriteResponseMs),
			i64(t.Errors), i64(t.BytesRead), i64(t.BytesWritten), i64(t.ReadIOs), i64(t.WriteIOs),
			i64(t.StartingSector), i64(t.MaximumSize), itoa(t.OutstandingIOs), cpu, usr, sys, eff}
		for b := range result.IometerLatencyBins {
			var n int64
			if b < len(t.LatencyBins) {
				n = t.LatencyBins[b]
			}
			row = append(row, i64(n))
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
