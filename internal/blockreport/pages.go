package blockreport

import (
	"strings"

	"github.com/clydebench/clyde/result"
)

// What the HTML pages (internal/htmlreport) show of a tool's own report,
// taken from the text reporters here so that the page and the text say the
// same thing in the same words.

// Setting is one line of a tool's settings, named as the tool's own report
// names it ("Profile", "Test", "Mode").
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CDMSettings are CrystalDiskMark's footer lines of res as its text export
// writes them (Profile, Test, Mode, Time) and clyde's Fill line when the
// filesystem was filled first.
func CDMSettings(res *result.Block) []Setting {
	c := res.CDM
	if c == nil {
		return nil
	}
	out := []Setting{
		{"Profile", c.Profile},
		{"Test", cdmTestSize(c.TestSizeBytes) + " (x" + itoa(c.Passes) + ")" + cdmCapacity(res.Space)},
		{"Mode", strings.TrimSpace(cdmMode(c))},
		{"Time", "Measure " + cdmSeconds(c.MeasureNs) + " / Interval " + cdmSeconds(c.IntervalNs)},
	}
	if f := cdmFill(res.Space); f != "" {
		out = append(out, Setting{"Fill", f})
	}
	return out
}

// CDMDrive is the drive as CrystalDiskMark's window shows it beside the
// test size, "/mnt/ssd: 40% (92/230MiB)": the filesystem under test and
// what was in use when the tests began (after any fill); "" when unknown.
func CDMDrive(s *result.BlockSpace) string {
	d := strings.TrimSpace(cdmCapacity(s))
	return strings.TrimSuffix(strings.TrimPrefix(d, "["), "]")
}

// CDMStopped says why a CrystalDiskMark run ended before its last test
// ("Interrupted"), "" when it did not.
func CDMStopped(res *result.Block) string { return cdmStopped(res) }

// CDMTestSize is the test size as CrystalDiskMark prints it: "1 GiB".
func CDMTestSize(n int64) string { return cdmTestSize(n) }

// OrionPeakPoints are the points where ORION's summary found the maximum
// large MBPS, the maximum small IOPS and the minimum small latency; nil
// where the set has no point of that kind.
func OrionPeakPoints(s *result.OrionSet) (mbps, iops, lat *result.OrionPoint) {
	pk := peaksOf(s)
	return pk.atMBPS, pk.atIOPS, pk.atLat
}
