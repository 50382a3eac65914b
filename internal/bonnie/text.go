package bonnie

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/result"
)

// Fixed pieces of bonnie++ 2.00a's text tables (bon_time.cpp: DoReportIO,
// DoReportFile).
const (
	textIOHead1     = "------Sequential Output------ --Sequential Input- --Random-\n"
	textIOHead2     = "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n"
	textIOHead3     = "Name:Size etc       "
	textFileHead1   = "------Sequential Create------ --------Random Create--------\n"
	textFileHead2   = "-Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n"
	textRateHeads   = " /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"
	textLatencyHead = "Latency          "
	// textLabelWidth is bonnie++'s txt_machine_size minus the NUL: the
	// width of the first column of the IO row.
	textLabelWidth = 19
)

// WriteText writes run in bonnie++ 2.00a's text layout: the IO table when
// cfg.FileSizeMiB > 0, then the file table when cfg.FilesK > 0, or the single
// empty line 2.00a prints in its place. The layout is 2.00a's byte for byte so
// that people who compare against years of bonnie++ reports see the same
// columns; three 2.00a bugs are fixed: file rates are the rates (2.00a prints
// the file count), a single-digit seek thread count stays in the size field,
// and the version is cfg.CompatVersion.
//
// The rate, %CP and too-short flag are read from each FSTestResult as
// Finish computed them. A test that did not run is blank; a test under
// result.MinTimeNs is "+++++ +++"; a %CP whose CPU time is unknown is blank.
func WriteText(w io.Writer, cfg result.FSConfig, run result.FSRun) error {
	var b strings.Builder
	if cfg.FileSizeMiB > 0 {
		writeTextIO(&b, cfg, run)
	}
	if cfg.FilesK > 0 {
		writeTextFiles(&b, cfg, run)
	} else {
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write bonnie++ text report: %w", err)
	}
	return nil
}

// writeTextIO writes the three IO header lines, the IO row and its Latency row.
func writeTextIO(b *strings.Builder, cfg result.FSConfig, run result.FSRun) {
	fmt.Fprintf(b, "Version %5s       %s", sanitizeText(cfg.CompatVersion), textIOHead1)
	b.WriteString(textIOHead2)
	b.WriteString(textIOHead3 + textRateHeads)
	b.WriteString(ioRowLabel(sanitizeText(cfg.MachineName), ioSizeField(cfg)))
	for t := result.PutChar; t <= result.Seeks; t++ {
		b.WriteString(textCell(t, run.Tests[t]))
	}
	b.WriteString("\n")
	writeTextLatency(b, run, result.PutChar)
}

// writeTextFiles writes the three file header lines, the file row and its
// Latency row.
func writeTextFiles(b *strings.Builder, cfg result.FSConfig, run result.FSRun) {
	maxBytes, minBytes := maxFileBytes(cfg), cfg.MinFileBytes
	fmt.Fprintf(b, "Version %5s       %s", sanitizeText(cfg.CompatVersion), textFileHead1)
	b.WriteString(fitBytes(sanitizeText(cfg.MachineName), textLabelWidth) + " " + textFileHead2)
	switch {
	case minBytes != 0:
		b.WriteString("files:max:min       ")
	case maxBytes != 0:
		b.WriteString("files:max           ")
	default:
		b.WriteString("              files ")
	}
	b.WriteString(textRateHeads)
	fmt.Fprintf(b, "%19s", fileSpecText(cfg))
	for t := result.SeqCreate; t <= result.RandDelete; t++ {
		b.WriteString(textCell(t, run.Tests[t]))
	}
	b.WriteString("\n")
	writeTextLatency(b, run, result.SeqCreate)
}

// writeTextLatency writes the Latency row of the six tests from first on.
func writeTextLatency(b *strings.Builder, run result.FSRun, first result.FSTest) {
	b.WriteString(textLatencyHead)
	for t := first; t < first+6; t++ {
		fmt.Fprintf(b, " %9s", latencyText(run.Tests[t]))
	}
	b.WriteString("\n")
}

// ioSizeField is the size part of the IO row label:
// size[:chunk[:concurrency[:seeks[:procs]]]], each part only when it differs
// from bonnie++'s default and trailing empty parts dropped, so
// "256M", "64M:16k::1000:3" or "64M::2".
func ioSizeField(cfg result.FSConfig) string {
	parts := []string{printSize(cfg.FileSizeMiB, "MG"), "", "", "", ""}
	if c := chunkBytes(cfg); c != defaultChunkBytes {
		parts[1] = printSize(int64(c), " km")
	}
	if c := concurrency(cfg); c != 1 {
		parts[2] = strconv.Itoa(c)
	}
	if s := seeks(cfg); s != defaultSeeks {
		parts[3] = strconv.Itoa(s)
	}
	if p := seekProcs(cfg); p != defaultSeekProcs {
		parts[4] = strconv.Itoa(p)
	}
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, ":")
}

// ioRowLabel places the machine name and the size field in 19 columns as
// bonnie++ does: the name cut to 18-len(size) bytes (padded with spaces), a
// space, the size. A size field of 19 or more bytes is printed alone.
func ioRowLabel(name, size string) string {
	off := textLabelWidth - 1 - len(size)
	if off < 0 {
		return size
	}
	return fitBytes(name, off) + " " + size
}

// fileSpecText is the first column of the file row: files[:max:min or
// :link or :symlink][/dirs]. The file chunk size is never shown, as in
// bonnie++.
func fileSpecText(cfg result.FSConfig) string {
	s := strconv.Itoa(cfg.FilesK)
	switch m := maxFileBytes(cfg); {
	case m == maxHardLink:
		s += ":link"
	case m == maxSymlink:
		s += ":symlink"
	case m != 0:
		s += ":" + strconv.FormatInt(m, 10) + ":" + strconv.FormatInt(cfg.MinFileBytes, 10)
	}
	if cfg.Dirs > 1 {
		s += "/" + strconv.Itoa(cfg.Dirs)
	}
	return s
}

// textCell is test t's rate (6 columns) and %CP (4 columns). The test is
// passed by index because a decoded result may not carry it.
func textCell(t result.FSTest, r result.FSTestResult) string {
	switch {
	case !r.Ran:
		return "      " + "    "
	case r.TooShort:
		return " +++++" + " +++"
	}
	cpu := "    "
	if cpuShown(r) {
		cpu = fmt.Sprintf(" %3d", truncInt(r.CPUPercent))
	}
	return textRate(t, r.RatePerSec) + cpu
}

// textRate formats a rate as bonnie++'s print_stat does in text: IO rates in
// KiB/s with a k, m or g unit chosen to fit five columns, seeks with one
// decimal below 1000, file rates as whole files per second.
func textRate(t result.FSTest, stat float64) string {
	switch {
	case t == result.Seeks:
		if stat >= 1000 {
			return fmt.Sprintf(" %5.0f", stat)
		}
		return fmt.Sprintf(" %5.1f", stat)
	case !t.IsIO():
		return fmt.Sprintf(" %5d", truncInt(stat))
	case stat < 10000:
		return fmt.Sprintf(" %4dk", truncInt(stat))
	case stat/1024 < 1000:
		m := stat / 1024
		if m < 100 {
			return fmt.Sprintf(" %4.1fm", m)
		}
		return fmt.Sprintf(" %4dm", truncInt(m+0.5))
	default:
		return fmt.Sprintf(" %4.1fg", stat/1024/1024)
	}
}
