package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/internal/bonnie"
	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// TextReport is one bonnie++ text report: an IO section, a file section, or
// both, as bonnie++ 1.96/1.97 ("Concurrency" line, plain K/sec) and
// 1.98/2.00a ("Name:Size etc", k/m/g suffixes) print them.
type TextReport struct {
	// Version is the bonnie++ version of the "Version" line ("1.96", "2.00a").
	Version string
	// Line is the 1-based line of the report's first "Version" line.
	Line   int
	Config result.FSConfig
	Run    result.FSRun
	// FileRatesUnknown is true for the 1.98+ layout, whose file rates are
	// the file count (2.00a's %d-of-a-double bug), not a rate.
	FileRatesUnknown bool
}

// textLabelWidth is the width of the label column of both row kinds.
const textLabelWidth = 19

// ParseText reads every bonnie++ text report in lines. Lines that are not
// part of a report are ignored. The error names the line at fault.
func ParseText(lines []string) ([]TextReport, error) {
	var reports []TextReport
	for i := 0; i < len(lines); i++ {
		version, ok := versionOf(lines[i])
		if !ok {
			continue
		}
		isIO := strings.Contains(lines[i], "Sequential Output")
		isFile := strings.Contains(lines[i], "Sequential Create")
		if !isIO && !isFile {
			continue
		}
		// A report cut short (a pasted excerpt, a killed bonnie++, a
		// truncated file) is refused rather than read as a smaller run.
		if i+3 >= len(lines) || !isDataRow(lines[i+3]) {
			return nil, fmt.Errorf("bonnie++ text line %d: no data line after the header that starts on line %d: the report is cut short", i+4, i+1)
		}
		row, lat := lines[i+3], ""
		if i+4 < len(lines) && strings.HasPrefix(lines[i+4], "Latency") {
			lat = lines[i+4]
		} else if hasLatencyRow(version) {
			return nil, fmt.Errorf("bonnie++ text line %d: no Latency line after the data line (bonnie++ %s prints one): the report is cut short", i+5, version)
		}
		var rep *TextReport
		if isIO || len(reports) == 0 || reports[len(reports)-1].hasFiles() {
			reports = append(reports, newTextReport(version, i+1))
		}
		rep = &reports[len(reports)-1]
		var err error
		if isIO {
			err = rep.parseIORow(row, lat, strings.HasPrefix(lines[i+2], "Name:Size"))
		} else {
			err = rep.parseFileRow(row, lat)
			if name := strings.TrimSpace(strings.SplitN(lines[i+1], "-Create--", 2)[0]); name != "" && rep.Config.MachineName == "" {
				rep.Config.MachineName = name
			}
			rep.FileRatesUnknown = !isOldLayout(version)
		}
		if err != nil {
			return nil, fmt.Errorf("bonnie++ text line %d: %w", i+4, err)
		}
		i += 3
	}
	for i := range reports {
		reports[i].finish()
	}
	return reports, nil
}

// isDataRow is false for what cannot be a report's data line: nothing, or
// the next section's first line.
func isDataRow(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && !strings.HasPrefix(t, "Latency") && !strings.HasPrefix(t, "Version ")
}

// hasLatencyRow is true for the versions whose text reports always print a
// Latency line under each data line: 1.96 and later, and clyde's own.
func hasLatencyRow(version string) bool {
	return !(strings.HasPrefix(version, "1.0") || strings.HasPrefix(version, "1.9") && version < "1.96")
}

// checkComplete refuses a data line (or its Latency line) that ends early:
// bonnie++ always fills the last column of a section it prints (seeks,
// random delete), so a blank one means the line was cut.
func checkComplete(cells [12]string, lat string, lats [6]string, last result.FSTest) error {
	if cells[10] == "" {
		return fmt.Errorf("the data line ends before its %s figure: the report is cut short", last.Name())
	}
	if lat != "" && lats[5] == "" {
		return fmt.Errorf("the Latency line ends before its %s figure: the report is cut short", last.Name())
	}
	return nil
}

// isOldLayout is true for the versions whose text file rates are real rates
// (1.96 and 1.97, checked against their source). 1.98 and 2.00a print the
// file count instead.
func isOldLayout(version string) bool {
	return strings.HasPrefix(version, "1.9") && version < "1.98" || strings.HasPrefix(version, "1.0")
}

func newTextReport(version string, line int) TextReport {
	r := TextReport{Version: version, Line: line}
	r.Config.CompatVersion = version
	r.Config.Concurrency = 1
	r.Config.Dirs = 1
	for t := range r.Run.Tests {
		r.Run.Tests[t].Test = result.FSTest(t)
	}
	return r
}

func (r *TextReport) hasFiles() bool { return r.Config.FilesK > 0 }

func (r *TextReport) finish() {
	for t := range r.Run.Tests {
		tr := &r.Run.Tests[t]
		tr.Name, tr.RateUnit = tr.Test.Name(), tr.Test.RateUnit()
	}
}

// versionOf returns the version of a "Version x.yz   ---..." line.
func versionOf(line string) (string, bool) {
	if !strings.HasPrefix(line, "Version ") {
		return "", false
	}
	f := strings.Fields(line)
	if len(f) < 3 {
		return "", false
	}
	return f[1], true
}

// cellsOf splits a row into its label and twelve rate/%CP cells. A row with
// every cell filled is split on spaces, which copes with rates wider than
// their column (1.96's 417854); a row with empty cells is cut at bonnie++'s
// fixed columns (19 for the label, then 6+4 per test).
func cellsOf(row string) (label string, cells [12]string, err error) {
	f := strings.Fields(row)
	if len(f) >= 13 {
		copy(cells[:], f[len(f)-12:])
		return strings.Join(f[:len(f)-12], " "), cells, nil
	}
	if len(row) <= textLabelWidth {
		return "", cells, fmt.Errorf("row %q has no figures", row)
	}
	label = strings.TrimSpace(row[:textLabelWidth])
	rest := row[textLabelWidth:]
	for i := range 6 {
		cells[2*i] = strings.TrimSpace(slice(rest, 10*i, 10*i+6))
		cells[2*i+1] = strings.TrimSpace(slice(rest, 10*i+6, 10*i+10))
	}
	return label, cells, nil
}

func slice(s string, from, to int) string {
	if from >= len(s) {
		return ""
	}
	return s[from:min(to, len(s))]
}

// latenciesOf splits a "Latency" row into six cells, by spaces when all six
// are there, otherwise at the fixed columns (17, then 10 each).
func latenciesOf(row string) [6]string {
	var out [6]string
	f := strings.Fields(row)
	if len(f) == 7 {
		copy(out[:], f[1:])
		return out
	}
	for i := range 6 {
		out[i] = strings.TrimSpace(slice(row, 17+10*i, 17+10*i+10))
	}
	return out
}

func (r *TextReport) parseIORow(row, lat string, suffixed bool) error {
	label, cells, err := cellsOf(row)
	if err != nil {
		return err
	}
	name, size := label, label
	if k := strings.LastIndexByte(label, ' '); k >= 0 {
		name, size = strings.TrimSpace(label[:k]), label[k+1:]
	} else {
		name = ""
	}
	if err := r.parseSizeField(size); err != nil {
		return err
	}
	r.Config.MachineName = name
	var lats [6]string
	if lat != "" {
		lats = latenciesOf(lat)
	}
	if err := checkComplete(cells, lat, lats, result.Seeks); err != nil {
		return err
	}
	for i := range 6 {
		t := result.FSTest(i)
		if err := setCell(&r.Run.Tests[t], cells[2*i], cells[2*i+1], lats[i], t != result.Seeks && suffixed); err != nil {
			return fmt.Errorf("%s: %w", t.Name(), err)
		}
	}
	return nil
}

func (r *TextReport) parseFileRow(row, lat string) error {
	label, cells, err := cellsOf(row)
	if err != nil {
		return err
	}
	if err := r.parseFileSpec(label); err != nil {
		return err
	}
	var lats [6]string
	if lat != "" {
		lats = latenciesOf(lat)
	}
	if err := checkComplete(cells, lat, lats, result.RandDelete); err != nil {
		return err
	}
	for i := range 6 {
		t := result.SeqCreate + result.FSTest(i)
		if err := setCell(&r.Run.Tests[t], cells[2*i], cells[2*i+1], lats[i], false); err != nil {
			return fmt.Errorf("%s: %w", t.Name(), err)
		}
	}
	return nil
}

// setCell fills one test from its text cells. suffixed rates carry k/m/g
// (KiB, MiB, GiB per second).
func setCell(tr *result.FSTestResult, rate, cpu, lat string, suffixed bool) error {
	switch rate {
	case "":
		return nil
	case "+++++":
		tr.Ran, tr.TooShort = true, true
	default:
		v, err := parseTextRate(rate, suffixed)
		if err != nil {
			return err
		}
		tr.Ran, tr.RatePerSec = true, v
	}
	switch cpu {
	case "", "+++":
	default:
		n, err := strconv.Atoi(cpu)
		if err != nil || n < 0 {
			return fmt.Errorf("%%CP %q is not a whole number", cpu)
		}
		tr.CPUPercent, tr.CPUKnown = float64(n), true
	}
	if lat != "" {
		ns, ok, err := bonnie.ParseLatency(lat)
		if err != nil {
			return fmt.Errorf("latency %q %v", lat, err)
		}
		if ok {
			tr.Latency.MaxNs = ns
		}
	}
	return nil
}

// parseTextRate reads "715", "523.4", "730k", "30.8m" or "1.4g" into KiB/s
// (IO tests) or the test's own unit.
func parseTextRate(s string, suffixed bool) (float64, error) {
	mult := 1.0
	if suffixed {
		switch s[len(s)-1] {
		case 'k':
			s = s[:len(s)-1]
		case 'm':
			s, mult = s[:len(s)-1], 1024
		case 'g':
			s, mult = s[:len(s)-1], 1024*1024
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || s == "" || strings.ContainsAny(s, "eEnN+-xXpP_") {
		return 0, fmt.Errorf("rate %q is not a number", s)
	}
	return v * mult, nil
}

// parseSizeField reads "2G", "300M:16k" (1.96/1.97) or
// "64M:16k:2:1000:3" (size:chunk:concurrency:seeks:procs, 1.98+).
func (r *TextReport) parseSizeField(s string) error {
	parts := strings.Split(s, ":")
	mib, err := parseUnitNumber(parts[0], units.Powers("MGT", 0))
	if err != nil || mib <= 0 {
		return fmt.Errorf("size %q is not a file size like 2G or 300M", s)
	}
	r.Config.FileSizeMiB = mib
	r.Config.ChunkBytes, r.Config.Seeks, r.Config.SeekProcs = 8192, 8192, 5
	if len(parts) > 1 && parts[1] != "" {
		c, err := parseUnitNumber(parts[1], units.Powers("kmg", 1))
		if err != nil || c <= 0 || c > 1<<30 {
			return fmt.Errorf("chunk %q in %q is not a size like 16k", parts[1], s)
		}
		r.Config.ChunkBytes = int(c)
	}
	for i, dst := range []*int{&r.Config.Concurrency, &r.Config.Seeks, &r.Config.SeekProcs} {
		if len(parts) > i+2 && parts[i+2] != "" {
			n, err := strconv.Atoi(parts[i+2])
			if err != nil || n <= 0 {
				return fmt.Errorf("part %d of %q is not a count", i+3, s)
			}
			*dst = n
		}
	}
	return nil
}

// parseUnitNumber reads digits with an optional one-letter unit suffix.
func parseUnitNumber(s string, table []units.Unit) (int64, error) {
	n, err := units.Parse(s, table)
	if err != nil || n > 1<<40 {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return n, nil
}

// parseFileSpec reads "256:4096:512/16", "16", "1:link", "1:4096:0".
func (r *TextReport) parseFileSpec(s string) error {
	spec, dirs, hasDirs := strings.Cut(s, "/")
	if hasDirs {
		n, err := strconv.Atoi(dirs)
		if err != nil || n <= 0 {
			return fmt.Errorf("directory count in %q is not a count", s)
		}
		r.Config.Dirs = n
	}
	parts := strings.Split(spec, ":")
	n, err := strconv.Atoi(parts[0])
	if err != nil || n <= 0 {
		return fmt.Errorf("file spec %q does not start with a file count", s)
	}
	r.Config.FilesK = n
	if len(parts) > 1 {
		switch parts[1] {
		case "link":
			r.Config.LinkMode, r.Config.MaxFileBytes = "link", -1
		case "symlink":
			r.Config.LinkMode, r.Config.MaxFileBytes = "symlink", -2
		default:
			m, err := strconv.ParseInt(parts[1], 10, 64)
			if err != nil || m < 0 {
				return fmt.Errorf("max size in %q is not a number", s)
			}
			r.Config.MaxFileBytes = m
		}
	}
	if len(parts) > 2 {
		m, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil || m < 0 {
			return fmt.Errorf("min size in %q is not a number", s)
		}
		r.Config.MinFileBytes = m
	}
	return nil
}
