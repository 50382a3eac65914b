package blockreport

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/result"
)

// cdmRule is the line that frames CrystalDiskMark's header.
const cdmRule = "------------------------------------------------------------------------------"

// cdmText is CrystalDiskMark's text export (DiskMarkDlg.cpp SaveText),
// line for line: the header, a [Read], [Write] and optional [Mix] block of
// "MB/s [IOPS] <us>" rows, and the Profile, Test, Mode, Time, Date and OS
// footer. CrystalDiskMark ends its lines with CRLF; clyde with LF. What
// clyde adds (test data both, --buffered, the average of the passes) is
// said in extra "*" header lines and in the Mode line.
func cdmText(ew *errWriter, res *result.Block) {
	c := res.CDM
	p := res.Provenance
	ew.printf("%s\n", cdmRule)
	ew.printf("clyde %s %s/%s: CrystalDiskMark's tests on clyde's block engine\n", p.Version, p.OS, p.Arch)
	ew.printf("%34s%s\n", "", "clyde: https://github.com/clydebench/clyde")
	ew.printf("%s\n", cdmRule)
	ew.printf("* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]\n")
	ew.printf("* KB = 1000 bytes, KiB = 1024 bytes\n")
	if c.TestData == "both" {
		ew.printf("* Random | 0Fill: each test ran with random data, then with All 0x00; x = 0Fill MB/s / Random MB/s\n")
	}
	if !c.Direct {
		ew.printf("* Buffered: every test ran through the OS page cache (--buffered); CrystalDiskMark never does\n")
	}
	if c.Aggregate == "average" {
		ew.printf("* Each figure is the average of the passes (KDiskMark's Default profile); CrystalDiskMark keeps the best\n")
	}
	if stop := cdmStopped(res); stop != "" {
		ew.printf("* %s: only the tests that ran are shown\n", stop)
	}
	ew.printf("\n")
	if len(c.Rows) == 0 {
		ew.printf("No test ran.\n\n")
	}
	sections := []struct{ mode, head string }{{"read", "[Read]"}, {"write", "[Write]"}, {"mix", ""}}
	if c.MixReadPct > 0 {
		sections[2].head = fmt.Sprintf("[Mix] Read %d%%/Write %d%%", c.MixReadPct, 100-c.MixReadPct)
	}
	for _, s := range sections {
		if s.head == "" || !slices.ContainsFunc(c.Rows, func(r result.BlockCDMRow) bool { return r.Mode == s.mode }) {
			continue
		}
		ew.printf("%s\n", s.head)
		rows := c.Rows
		for i := 0; i < len(rows); i++ {
			r := rows[i]
			if r.Mode != s.mode {
				continue
			}
			line := cdmLine(r)
			if c.TestData == "both" && i+1 < len(rows) && rows[i+1].Test == r.Test && rows[i+1].Mode == r.Mode {
				z := rows[i+1]
				ratio := 0.0
				if r.BWBytes > 0 {
					ratio = z.BWBytes / r.BWBytes
				}
				line += fmt.Sprintf(" | 0Fill: %9.3f MB/s [%9.1f IOPS] <%9.2f us> | x%.3f", z.BWBytes/1e6, z.IOPS, z.LatencyUs, ratio)
				i++
			}
			ew.printf("%s\n", line)
		}
		ew.printf("\n")
	}
	ew.printf("Profile: %s\n", c.Profile)
	ew.printf("   Test: %s (x%d)%s\n", cdmTestSize(c.TestSizeBytes), c.Passes, cdmCapacity(res.Space))
	ew.printf("   Mode:%s\n", cdmMode(c))
	ew.printf("   Time: Measure %s / Interval %s \n", cdmSeconds(c.MeasureNs), cdmSeconds(c.IntervalNs))
	t := p.StartTime.In(time.Local)
	ew.printf("   Date: %04d/%02d/%02d %d:%02d:%02d\n", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second())
	os := p.Kernel
	if os == "" {
		os = p.OS
	}
	ew.printf("     OS: %s (%s)\n", os, p.Arch)
	if f := cdmFill(res.Space); f != "" {
		ew.printf("   Fill: %s\n", f)
	}
}

// cdmStopped says why a run did not finish ("" when it did).
func cdmStopped(res *result.Block) string {
	switch {
	case res.Interrupted && res.Error != "":
		return "Interrupted (" + res.Error + ")"
	case res.Interrupted:
		return "Interrupted"
	case res.Error != "":
		return "Stopped by an error: " + res.Error
	}
	return ""
}

// cdmLine is GetResultString: the test's kind, size, queues and threads,
// then MB/s, IOPS and the mean latency.
func cdmLine(r result.BlockCDMRow) string {
	kind := "SEQ"
	if r.Random {
		kind = "RND"
	}
	kib := r.BSBytes / 1024
	size := fmt.Sprintf("%4dKiB", kib)
	if kib >= 1024 {
		size = fmt.Sprintf("%4dMiB", kib/1024)
	}
	return fmt.Sprintf("  %s %s (Q=%3d, T=%2d): %9.3f MB/s [%9.1f IOPS] <%9.2f us>", kind, size, r.Queues, r.Threads,
		r.BWBytes/1e6, r.IOPS, r.LatencyUs)
}

// cdmTestSize is the "Test:" size as CrystalDiskMark prints it: "1 GiB",
// "256 MiB".
func cdmTestSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return humanize.IBytes(uint64(n))
}

// cdmCapacity is the drive in the "Test:" line, "[D: 12% (42/350GiB)]":
// here the mount point of the filesystem under test, with what was in use
// when the test began (after any fill).
func cdmCapacity(s *result.BlockSpace) string {
	if s == nil || s.TotalBytes == 0 {
		return ""
	}
	where := s.MountPoint
	if where == "" {
		where = s.Path
	}
	pct := float64(s.UsedBytes) / float64(s.TotalBytes) * 100
	if s.TotalBytes < 8<<30 {
		return fmt.Sprintf(" [%s: %.0f%% (%.0f/%.0fMiB)]", where, pct, float64(s.UsedBytes)/(1<<20), float64(s.TotalBytes)/(1<<20))
	}
	return fmt.Sprintf(" [%s: %.0f%% (%.0f/%.0fGiB)]", where, pct, float64(s.UsedBytes)/(1<<30), float64(s.TotalBytes)/(1<<30))
}

// cdmMode is the "Mode:" line: [Admin] and <0Fill> as CrystalDiskMark
// writes them, then what clyde adds.
func cdmMode(c *result.BlockCDM) string {
	var b strings.Builder
	if c.Admin {
		b.WriteString(" [Admin]")
	}
	switch c.TestData {
	case "zero":
		b.WriteString(" <0Fill>")
	case "both":
		b.WriteString(" <Random | 0Fill>")
	}
	if !c.Direct {
		b.WriteString(" <Buffered>")
	}
	return b.String()
}

func cdmSeconds(ns int64) string {
	if ns%int64(time.Second) == 0 {
		return fmt.Sprintf("%d sec", ns/int64(time.Second))
	}
	return fmt.Sprintf("%s sec", strconv.FormatFloat(float64(ns)/1e9, 'f', -1, 64))
}

// cdmFill is clyde's extra footer line for a drive filled before the test.
func cdmFill(s *result.BlockSpace) string {
	if s == nil || s.Fill == nil {
		return ""
	}
	f := s.Fill
	removed := "removed after the test"
	if !f.Removed {
		removed = "NOT removed: see the notes"
	}
	return fmt.Sprintf("%s, %s of incompressible data in %d file(s) written before the test, %s", f.Request,
		humanize.IBytes(uint64(f.WrittenBytes)), f.Files, removed)
}

// cdmCSV is one line per test, mode and test data.
func cdmCSV(w io.Writer, res *result.Block) error {
	c := res.CDM
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"profile", "preset", "test", "mode", "data", "bs_bytes", "queues", "threads", "mb_s", "iops",
		"latency_us", "passes", "aggregate", "direct", "test_size_bytes", "used_bytes", "total_bytes"})
	var used, total string
	if res.Space != nil {
		used, total = strconv.FormatUint(res.Space.UsedBytes, 10), strconv.FormatUint(res.Space.TotalBytes, 10)
	}
	for _, r := range c.Rows {
		_ = cw.Write([]string{c.Profile, c.Preset, r.Test, r.Mode, r.Data, i64(r.BSBytes), itoa(r.Queues), itoa(r.Threads),
			ftoa(r.BWBytes / 1e6), ftoa(r.IOPS), ftoa(r.LatencyUs), itoa(c.Passes), c.Aggregate, itoa(b2i(c.Direct)),
			i64(c.TestSizeBytes), used, total})
	}
	cw.Flush()
	return cw.Error()
}
