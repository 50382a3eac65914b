package bonnie

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// CellState says what a rate or %CP cell of a bonnie++ CSV line held.
type CellState uint8

// The states of a rate or %CP cell.
const (
	// CellAbsent is an empty cell: the test did not run (-f, -s 0, -n 0).
	CellAbsent CellState = iota
	// CellKnown is a number.
	CellKnown
	// CellTooFast is "+++++" (rate) or "+++" (%CP): the test ran in under
	// bonnie++'s 0.5 s, so no figure was printed.
	CellTooFast
)

// String names the state for messages and test failures.
func (s CellState) String() string {
	switch s {
	case CellAbsent:
		return "absent"
	case CellKnown:
		return "known"
	case CellTooFast:
		return "too-fast"
	}
	return "CellState(" + strconv.Itoa(int(s)) + ")"
}

// TestFigures are one test's three figures from a CSV line.
type TestFigures struct {
	// Rate is KiB/s for the IO tests, seeks/s for seeks and files/s for the
	// file tests; meaningful only when RateState is CellKnown.
	Rate      float64
	RateState CellState
	// CPU is %CP (it may exceed 100 on SMP); meaningful only when CPUState
	// is CellKnown.
	CPU      int
	CPUState CellState
	// LatencyNs is the longest single operation (see ParseLatency for how
	// a truncated cell maps to nanoseconds); meaningful only when
	// LatencyKnown (an empty cell is not a zero latency).
	LatencyNs    int64
	LatencyKnown bool
}

// Line is one parsed bonnie++ CSV data line. Columns that a format does not
// have, or that a line leaves empty, hold the zero value unless said
// otherwise.
type Line struct {
	// Format is field 0: "1.96", "1.97" (48 fields) or "1.98" (50 fields).
	Format string
	// Version is field 1: the bonnie++ version ("2.00a") or clyde's
	// compat version ("clyde").
	Version string
	// Name is the machine name (-m), as written.
	Name        string
	Concurrency int
	// Seed is the -z seed; when the seed column is not a 32-bit unsigned
	// number it is a -Z file name and is in SeedFile instead.
	Seed     uint32
	SeedFile string
	// Size is the file_size cell as written ("256M", "2G"); SizeMiB is its
	// value. Both are empty/0 when the IO tests did not run (-s 0).
	Size    string
	SizeMiB int64
	// ChunkBytes is the IO chunk size, 8192 (the default) when the cell is
	// empty. 2.00a never writes it, so for its lines 8192 may be wrong.
	ChunkBytes int
	// Seeks and SeekProcs are the seek count and seek thread count; 0 when
	// not recorded (formats 1.96/1.97, or -s 0).
	Seeks     int
	SeekProcs int
	// FilesK is -n's file count in units of 1024; 0 when the file tests did
	// not run.
	FilesK int
	// MaxFileBytes and MinFileBytes are -n's size range. MaxFileBytes is -1
	// for hard links and -2 for symlinks, as bonnie++ encodes them, and
	// LinkMode then says "link" or "symlink".
	MaxFileBytes int64
	MinFileBytes int64
	LinkMode     string
	// Dirs is the directory count, 1 when the cell is empty.
	Dirs int
	// FileChunkBytes is the file-test chunk size, 8192 when the cell is
	// empty or was not recorded (see BonniePlacement).
	FileChunkBytes int
	// BonniePlacement is true when the line was read with bonnie++'s own
	// misplaced columns: Version is a bonnie++ version (like "2.00a" or
	// "1.97"), num_dirs is empty and the directory count sits in the
	// file_chunk_size column, whose real value bonnie++ lost. clyde's lines
	// (correct placement) read with it false.
	BonniePlacement bool
	// Tests holds the twelve tests' figures in result.FSTest order.
	Tests [result.FSTestCount]TestFigures
}

// IsHeader reports whether line is a bonnie++ CSV header rather than data:
// the "format_version,..." header of 1.96 and later, or the "name,..." header
// of 1.03 and older, which bon_csv2txt skips.
func IsHeader(line string) bool {
	return strings.HasPrefix(line, "format_version,") || strings.HasPrefix(line, "name,")
}

// errPrefix starts every parse error so a message names its source.
const errPrefix = "bonnie++ CSV: "

// ParseCSVLine parses one bonnie++ CSV data line of format 1.96, 1.97 (48
// fields) or 1.98 (50 fields), from bonnie++ or from clyde, so saved runs of
// either can be compared. A trailing newline is ignored. For bonnie++'s own
// lines the directory count is read where bonnie++ misplaces it (see
// Line.BonniePlacement). The error, when there is one, is one line naming the
// field and the problem. It never panics.
func ParseCSVLine(line string) (Line, error) {
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return Line{}, errors.New(errPrefix + "empty line")
	}
	if IsHeader(line) {
		return Line{}, errors.New(errPrefix + "header line, not data")
	}
	f := strings.Split(line, ",")
	var lay layout
	switch len(f) {
	case 50:
		lay = layout98()
	case 48:
		lay = layout97()
	default:
		return Line{}, fmt.Errorf(errPrefix+"%d fields, want 48 (1.96/1.97) or 50 (1.98)", len(f))
	}
	switch want := formatFields(f[colFormat]); {
	case want == 0:
		return Line{}, fmt.Errorf(errPrefix+"field 0 (format_version): %s is not 1.96, 1.97 or 1.98", quote(f[colFormat]))
	case want != len(f):
		return Line{}, fmt.Errorf(errPrefix+"format %s has %d fields, want %d", f[colFormat], len(f), want)
	}
	p := lineParser{f: f, lay: lay}
	return p.parse()
}

// formatFields is the field count of a CSV format, 0 for an unknown format.
func formatFields(format string) int {
	switch format {
	case "1.96", "1.97":
		return 48
	case "1.98":
		return 50
	}
	return 0
}

// lineParser reads the fields of one line and keeps the first error.
type lineParser struct {
	f   []string
	lay layout
	err error
}

// fail records the first problem, naming field i.
func (p *lineParser) fail(i int, problem string) {
	if p.err == nil {
		p.err = fmt.Errorf(errPrefix+"field %d (%s): %s %s", i, p.lay.names[i], quote(p.f[i]), problem)
	}
}

// quote renders a cell for an error message, cut so the message stays short.
func quote(s string) string {
	const maxLen = 40
	if len(s) > maxLen {
		return strconv.Quote(s[:maxLen]) + "..."
	}
	return strconv.Quote(s)
}

func (p *lineParser) parse() (Line, error) {
	f, lay := p.f, p.lay
	l := Line{
		Format:         f[colFormat],
		Version:        f[colVersion],
		Name:           f[colName],
		ChunkBytes:     defaultChunkBytes,
		Dirs:           1,
		FileChunkBytes: defaultFileChunk,
	}
	l.Concurrency = p.count(colConcurrency, 0)
	if s, err := strconv.ParseUint(f[colSeed], 10, 32); err == nil && isDigits(f[colSeed]) {
		l.Seed = uint32(s)
	} else {
		l.SeedFile = f[colSeed]
	}
	if f[colSize] != "" {
		l.Size = f[colSize]
		l.SizeMiB = p.size(colSize, "MGT", 1)
	}
	if f[colChunk] != "" {
		l.ChunkBytes = int(p.size(colChunk, " kmg", 1))
	}
	if lay.seeks >= 0 {
		l.Seeks = p.count(lay.seeks, 0)
		l.SeekProcs = p.count(lay.procs, 0)
	}
	for t := result.PutChar; t <= result.Seeks; t++ {
		l.Tests[t] = p.test(lay.ioTests+2*int(t), lay.latency+int(t))
	}
	p.files(&l)
	for t := result.SeqCreate; t <= result.RandDelete; t++ {
		l.Tests[t] = p.test(lay.fileTest+2*int(t-result.SeqCreate), lay.latency+int(t))
	}
	if p.err != nil {
		return Line{}, p.err
	}
	return l, nil
}

// files reads num_files, max_size, min_size, num_dirs and file_chunk_size,
// undoing bonnie++'s misplacement of num_dirs.
func (p *lineParser) files(l *Line) {
	n := p.lay.numFiles
	f := p.f
	l.FilesK = p.count(n, 0)
	switch f[n+1] {
	case "link":
		l.MaxFileBytes, l.LinkMode = maxHardLink, "link"
	case "symlink":
		l.MaxFileBytes, l.LinkMode = maxSymlink, "symlink"
	case "":
	default:
		l.MaxFileBytes = p.size(n+1, " kmg", 0)
	}
	if f[n+2] != "" {
		l.MinFileBytes = p.size(n+2, " kmg", 0)
	}
	dirsCol, chunkCol := n+3, n+4
	// bonnie++ leaves num_dirs empty and writes the count into
	// file_chunk_size. A value with a unit suffix is a chunk size, never a
	// directory count, so such a cell keeps its own meaning.
	if isBonnieVersion(l.Version) && f[dirsCol] == "" && f[chunkCol] != "" && isDigits(f[chunkCol]) {
		l.BonniePlacement = true
		l.Dirs = p.count(chunkCol, 1)
		return
	}
	l.BonniePlacement = isBonnieVersion(l.Version) && f[dirsCol] == "" && f[chunkCol] == ""
	if f[dirsCol] != "" {
		l.Dirs = p.count(dirsCol, 1)
	}
	if f[chunkCol] != "" {
		l.FileChunkBytes = int(p.size(chunkCol, " kmg", 1))
	}
}

// test reads a rate cell, the %CP cell after it and the latency cell lat.
func (p *lineParser) test(rate, lat int) TestFigures {
	var tf TestFigures
	var err error
	if tf.Rate, tf.RateState, err = ParseRate(p.f[rate]); err != nil {
		p.fail(rate, err.Error())
	}
	if tf.CPU, tf.CPUState, err = ParseCPU(p.f[rate+1]); err != nil {
		p.fail(rate+1, err.Error())
	}
	if tf.LatencyNs, tf.LatencyKnown, err = ParseLatency(p.f[lat]); err != nil {
		p.fail(lat, err.Error())
	}
	return tf
}

// count reads a non-negative decimal count, at least lowest; an empty cell is 0.
func (p *lineParser) count(i, lowest int) int {
	s := p.f[i]
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil || !isDigits(s):
		p.fail(i, "is not a whole number")
	case n < lowest:
		p.fail(i, "is below "+strconv.Itoa(lowest))
	}
	return n
}

// size reads a size as bonnie++'s print_size writes it: digits and an
// optional unit letter, units[0] meaning ×1 (a space: no letter) and each
// following letter ×1024 more. The value times unit must fit in int64, and
// at least lowest.
func (p *lineParser) size(i int, units string, lowest int64) int64 {
	v, err := parseSize(p.f[i], units)
	switch {
	case err != nil:
		p.fail(i, err.Error())
	case v < lowest:
		p.fail(i, "is below "+strconv.FormatInt(lowest, 10))
	}
	return v
}

// parseSize reads "<digits>[unit]" with the units of print_size: units[0]
// is x1 (a space: no letter), each following letter x1024 more.
func parseSize(s, letters string) (int64, error) {
	table := units.Powers(letters, 0)
	if strings.HasPrefix(letters, " ") {
		table = units.Powers(letters[1:], 1)
	}
	n, err := units.Parse(s, table)
	switch {
	case errors.Is(err, units.ErrTooLarge):
		return 0, errors.New("is too large")
	case err != nil:
		return 0, errors.New("is not a size (digits and an optional " + strings.TrimSpace(letters) + " unit)")
	}
	return n, nil
}

// isDigits reports whether s is a non-empty run of ASCII digits, the only
// number form bonnie++ prints; it keeps signs, spaces and underscores out.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isDecimal reports whether s is digits with at most one decimal point
// between digits, the form of bonnie++'s %d and %.1f rates.
func isDecimal(s string) bool {
	whole, frac, found := strings.Cut(s, ".")
	return isDigits(whole) && (!found || isDigits(frac))
}

// isTooFast reports whether s is a run of '+', bonnie++'s "too fast to
// measure" mark ("+++++" for rates, "+++" for %CP; the man page says "++++").
func isTooFast(s string) bool {
	return s != "" && strings.Trim(s, "+") == ""
}

// isBonnieVersion reports whether v looks like a bonnie++ release number
// ("1.96", "1.97.1", "2.00a"), whose CSV lines misplace num_dirs; clyde
// writes its own name there.
func isBonnieVersion(v string) bool {
	v = strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz")
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !isDigits(p) {
			return false
		}
	}
	return true
}

// ParseRate reads a rate cell: empty (CellAbsent), a run of '+'
// (CellTooFast), or a non-negative decimal number (CellKnown) such as
// bonnie++'s "2144" or "523.4".
func ParseRate(s string) (float64, CellState, error) {
	switch {
	case s == "":
		return 0, CellAbsent, nil
	case isTooFast(s):
		return 0, CellTooFast, nil
	case !isDecimal(s):
		return 0, CellAbsent, errors.New("is not a rate (a number, +++++ or empty)")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, CellAbsent, errors.New("is too large for a rate")
	}
	return v, CellKnown, nil
}

// ParseCPU reads a %CP cell: empty (CellAbsent), a run of '+'
// (CellTooFast), or a non-negative whole number (CellKnown).
func ParseCPU(s string) (int, CellState, error) {
	switch {
	case s == "":
		return 0, CellAbsent, nil
	case isTooFast(s):
		return 0, CellTooFast, nil
	case !isDigits(s):
		return 0, CellAbsent, errors.New("is not a %CP (a whole number, +++ or empty)")
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, CellAbsent, errors.New("is too large for a %CP")
	}
	return v, CellKnown, nil
}

// ParseLatency reads a latency cell as bonnie++ writes it ("11334us",
// "702ms", "142s") into nanoseconds. known is false for an empty cell, which
// means the test did not run.
//
// bonnie++ truncates, and switches unit at 0.099999 s and 99.999999 s, so
// a cell stands for a range of latencies; ParseLatency returns the smallest
// nanosecond count that FormatLatency renders as that same cell, so that
// re-rendering a parsed line gives it back byte for byte: "0us" is 1 ns,
// "99ms" is 99.999001 ms, "99s" is 99.999999001 s. Cells bonnie++ never
// writes ("5ms", "200000us") read at face value.
func ParseLatency(s string) (ns int64, known bool, err error) {
	if s == "" {
		return 0, false, nil
	}
	var digits string
	var unit, lowest int64 // lowest: the smallest latency printed in this unit
	switch {
	case strings.HasSuffix(s, "us"):
		digits, unit, lowest = s[:len(s)-2], 1_000, 1
	case strings.HasSuffix(s, "ms"):
		digits, unit, lowest = s[:len(s)-2], 1_000_000, 99_999_001
	case strings.HasSuffix(s, "s"):
		digits, unit, lowest = s[:len(s)-1], 1_000_000_000, 99_999_999_001
	default:
		return 0, false, errors.New("is not a latency (digits and us, ms or s)")
	}
	if !isDigits(digits) {
		return 0, false, errors.New("is not a latency (digits and us, ms or s)")
	}
	n, perr := strconv.ParseInt(digits, 10, 64)
	if perr != nil || n > math.MaxInt64/unit {
		return 0, false, errors.New("is too large for a latency")
	}
	ns = n * unit
	// Within the cell's truncation range [ns, ns+unit), move up to the
	// first value this unit is printed for.
	if ns < lowest && lowest < ns+unit {
		ns = lowest
	}
	return ns, true, nil
}

// Result turns the line back into clyde's result types, so a bonnie++ CSV
// line can be rendered with WriteText and CSVLine or compared with clyde's
// runs. Only the derived figures exist in a CSV line: each test gets Ran,
// RatePerSec, CPUPercent, CPUKnown, TooShort and Latency.MaxNs, while Ops,
// Bytes, ElapsedNs and the CPU times stay zero, so do not call Finish on
// them. cfg.CompatVersion is the line's Version.
func (l Line) Result() (result.FSConfig, result.FSRun) {
	cfg := result.FSConfig{
		MachineName:   l.Name,
		FileSizeMiB:   l.SizeMiB,
		ChunkBytes:    l.ChunkBytes,
		Seeks:         l.Seeks,
		SeekProcs:     l.SeekProcs,
		FilesK:        l.FilesK,
		MaxFileBytes:  l.MaxFileBytes,
		MinFileBytes:  l.MinFileBytes,
		Dirs:          l.Dirs,
		FileChunk:     l.FileChunkBytes,
		Concurrency:   l.Concurrency,
		Seed:          l.Seed,
		SeedFile:      l.SeedFile,
		LinkMode:      l.LinkMode,
		CompatVersion: l.Version,
	}
	run := result.FSRun{Seed: l.Seed}
	for i, tf := range l.Tests {
		t := result.FSTest(i)
		r := &run.Tests[i]
		r.Test, r.Name, r.RateUnit = t, t.Name(), t.RateUnit()
		r.Ran = tf.RateState != CellAbsent
		r.TooShort = tf.RateState == CellTooFast
		if tf.RateState == CellKnown {
			r.RatePerSec = tf.Rate
		}
		if tf.CPUState == CellKnown {
			r.CPUPercent, r.CPUKnown = float64(tf.CPU), true
		}
		if tf.LatencyKnown {
			r.Latency.MaxNs = tf.LatencyNs
		}
	}
	return cfg, run
}
