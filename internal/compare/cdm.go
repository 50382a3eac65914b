package compare

import "github.com/clydebench/clyde/result"

// cdmFigures are a CrystalDiskMark run's figures as CrystalDiskMark shows
// them, so its text, compare, the page, the history and the regression check
// say one number per test: one column per row (test, mode, test data) under
// CrystalDiskMark's row name, in MB/s (10^6 bytes/s), IOPS and mean
// latency, each the kept figure (the best pass, or the passes' average with
// --passes-kept average). The passes behind it stay in the JSON's jobs. A
// row that did not run (an interrupted run) has no column.
func cdmFigures(c *result.BlockCDM) []Figure {
	var out []Figure
	for _, row := range c.Rows {
		if len(row.Jobs) == 0 || row.BWBytes <= 0 {
			continue
		}
		k := CDMRowKey(row)
		out = append(out,
			Figure{Key: k, Unit: "MB/s", HigherIsBetter: true, State: Known, Values: []float64{row.BWBytes / 1e6}},
			Figure{Key: k + " IOPS", Unit: "IOPS", HigherIsBetter: true, State: Known, Values: []float64{row.IOPS}},
			Figure{Key: k + " latency", Unit: "ns", State: Known, Values: []float64{row.LatencyUs * 1e3}})
	}
	return out
}

// CDMRowKey names a CrystalDiskMark row as its window does: "SEQ1M Q8T1
// Read", with "0Fill" after a row of All 0x00 test data, so the random and
// 0Fill rows of --test-data both sit side by side.
func CDMRowKey(row result.BlockCDMRow) string {
	k := row.Test + " " + cdmModeName(row.Mode)
	if row.Data == "zero" {
		k += " 0Fill"
	}
	return k
}

// cdmModeName is CrystalDiskMark's heading of a mode.
func cdmModeName(mode string) string {
	switch mode {
	case "read":
		return "Read"
	case "write":
		return "Write"
	case "mix":
		return "Mix"
	}
	return mode
}
