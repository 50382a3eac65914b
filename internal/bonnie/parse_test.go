package bonnie

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// TestParseReferenceLines parses every real bonnie++ 2.00a line and checks
// figures picked from each, including 2.00a's misplaced num_dirs.
func TestParseReferenceLines(t *testing.T) {
	lines := referenceLines(t)
	parsed := map[string]Line{}
	for i, line := range lines {
		l, err := ParseCSVLine(line)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if l.Format != "1.98" || l.Version != "2.00a" {
			t.Errorf("line %d: format %q version %q", i+1, l.Format, l.Version)
		}
		parsed[l.Name] = l
	}
	if len(parsed) != len(lines) || len(lines) != 10 {
		t.Fatalf("parsed %d distinct names from %d lines, want 10", len(parsed), len(lines))
	}
	tests := []struct {
		name  string
		check func(Line) bool
	}{
		{"testbox", func(l Line) bool {
			return l.Seed == 1795979251 && l.SeedFile == "" && l.Size == "256M" && l.SizeMiB == 256 &&
				l.ChunkBytes == 8192 && l.Seeks == 8192 && l.SeekProcs == 5 && l.Concurrency == 1 &&
				l.FilesK == 16 && l.MaxFileBytes == 4096 && l.MinFileBytes == 512 &&
				l.Dirs == 4 && l.FileChunkBytes == 8192 && l.BonniePlacement
		}},
		{"testbox", func(l Line) bool {
			pc := l.Tests[result.PutChar]
			rw := l.Tests[result.Rewrite]
			return pc == TestFigures{Rate: 2144, RateState: CellKnown, CPU: 73, CPUState: CellKnown, LatencyNs: 11_334_000, LatencyKnown: true} &&
				rw.RateState == CellTooFast && rw.CPUState == CellTooFast && rw.LatencyNs == 1_477_000 &&
				l.Tests[result.SeqCreate].Rate == 1079 && l.Tests[result.RandDelete].LatencyNs == 9_835_000
		}},
		{"lab-btrfs", func(l Line) bool {
			return l.Size == "2G" && l.SizeMiB == 2048 && l.Dirs == 16 && l.FilesK == 256 &&
				l.Tests[result.Rewrite].LatencyNs == 6082*ms && l.Tests[result.SeqCreate].LatencyNs == 702*ms &&
				l.Tests[result.SeqStat].Rate == 102355
		}},
		{"q1", func(l Line) bool { // -s 0 -n 1
			io := true
			for t := result.PutChar; t <= result.Seeks; t++ {
				io = io && l.Tests[t] == TestFigures{}
			}
			return io && l.Size == "" && l.SizeMiB == 0 && l.Seeks == 0 && l.SeekProcs == 0 &&
				l.FilesK == 1 && l.Dirs == 1 && l.MaxFileBytes == 0 && l.BonniePlacement &&
				l.Tests[result.RandCreate].Rate == 1976 && l.Tests[result.RandCreate].CPU == 72
		}},
		{"seekcpu", func(l Line) bool { // -s 512:8k:400k:5 -f -n 0
			s := l.Tests[result.Seeks]
			return l.Seeks == 409600 && l.SizeMiB == 512 && l.FilesK == 0 &&
				l.Tests[result.PutChar].RateState == CellAbsent && !l.Tests[result.PutChar].LatencyKnown &&
				s.Rate == 292918 && s.CPU == 399 && s.LatencyNs == 21_409_000 &&
				l.Tests[result.SeqCreate] == TestFigures{}
		}},
		{"chunky", func(l Line) bool { // -s 64:16k:1000:3: 2.00a lost the 16k
			return l.Seeks == 1000 && l.SeekProcs == 3 && l.ChunkBytes == 8192 && l.SizeMiB == 64
		}},
		{"lnk", func(l Line) bool { // -n 1:-1
			return l.MaxFileBytes == -1 && l.LinkMode == "link" && l.FilesK == 1 &&
				l.Tests[result.RandStat].LatencyNs == 2_000
		}},
		{"xx", func(l Line) bool { // -z 42
			return l.Seed == 42 && l.SizeMiB == 64 && l.Tests[result.GetChar].Rate == 2952
		}},
		{"lab-ntfs", func(l Line) bool {
			return l.Tests[result.PutChar].Rate == 25 && l.Tests[result.PutChar].LatencyNs == 1549*ms &&
				l.Tests[result.GetBlock].Rate == 1051954
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ok := parsed[tt.name]
			if !ok {
				t.Fatalf("no line named %q", tt.name)
			}
			if !tt.check(l) {
				t.Errorf("unexpected figures: %+v", l)
			}
		})
	}
}

func TestParseCSVLine(t *testing.T) {
	// fields98 builds a 50-field line from a default clyde line with some
	// fields replaced.
	fields98 := func(set map[int]string) string {
		f := strings.Split(CSVLine(baseConfig(), baseRun()), ",")
		for i, v := range set {
			f[i] = v
		}
		return strings.Join(f, ",")
	}
	line97 := "1.97,1.97,geek.sc,1,1385389585,2G,16k,715,99,417854,19,377889,20,+++++,+++,+++++,+++,+++++,+++," +
		"256,4096,512,,16,25559,52,252156,91,34331,97,25815,52,216073,89,31693,97," +
		"16906us,38us,54us,2697us,21us,837us,737ms,1900us,735us,821ms,9814us,625us"
	tests := []struct {
		name  string
		line  string
		check func(Line) bool
	}{
		{"1.97 (48 fields) with misplaced dirs", line97, func(l Line) bool {
			return l.Format == "1.97" && l.ChunkBytes == 16384 && l.Seeks == 0 && l.SeekProcs == 0 &&
				l.Dirs == 16 && l.FilesK == 256 && l.BonniePlacement &&
				l.Tests[result.PutBlock].Rate == 417854 && l.Tests[result.Seeks].RateState == CellTooFast &&
				l.Tests[result.SeqStat].Rate == 252156 && l.Tests[result.RandDelete].LatencyNs == 625_000 &&
				l.Tests[result.SeqCreate].LatencyNs == 737*ms
		}},
		{"1.96", strings.Replace(line97, "1.97,1.97", "1.96,1.96", 1), func(l Line) bool {
			return l.Format == "1.96" && l.Dirs == 16
		}},
		{"clyde line: correct placement", fields98(map[int]string{6: "16k", 24: "4", 25: "16k"}), func(l Line) bool {
			return l.Version == "clyde" && l.ChunkBytes == 16384 && l.Dirs == 4 && l.FileChunkBytes == 16384 && !l.BonniePlacement
		}},
		{"clyde line: chunk 512 stays a chunk", fields98(map[int]string{25: "512"}), func(l Line) bool {
			return l.Dirs == 1 && l.FileChunkBytes == 512
		}},
		{"2.00a version with num_dirs filled is read as placed", fields98(map[int]string{1: "2.00a", 24: "4", 25: "16k"}), func(l Line) bool {
			return l.Dirs == 4 && l.FileChunkBytes == 16384 && !l.BonniePlacement
		}},
		{"2.00a version with a chunk suffix at 25 keeps the chunk", fields98(map[int]string{1: "2.00a", 25: "16k"}), func(l Line) bool {
			return l.Dirs == 1 && l.FileChunkBytes == 16384 && !l.BonniePlacement
		}},
		{"seed file", fields98(map[int]string{4: "/tmp/rand.dat"}), func(l Line) bool {
			return l.Seed == 0 && l.SeedFile == "/tmp/rand.dat"
		}},
		{"seed above uint32 is a file name", fields98(map[int]string{4: "4294967296"}), func(l Line) bool {
			return l.Seed == 0 && l.SeedFile == "4294967296"
		}},
		{"seed max uint32", fields98(map[int]string{4: "4294967295"}), func(l Line) bool {
			return l.Seed == math.MaxUint32 && l.SeedFile == ""
		}},
		{"symlink", fields98(map[int]string{22: "symlink"}), func(l Line) bool {
			return l.MaxFileBytes == -2 && l.LinkMode == "symlink"
		}},
		{"trailing CRLF", fields98(nil) + "\r\n", func(l Line) bool { return l.Tests[result.RandDelete].LatencyKnown }},
		{"empty cpu with a rate", fields98(map[int]string{10: ""}), func(l Line) bool {
			pc := l.Tests[result.PutChar]
			return pc.RateState == CellKnown && pc.CPUState == CellAbsent
		}},
		{"four-plus man-page form", fields98(map[int]string{9: "++++"}), func(l Line) bool {
			return l.Tests[result.PutChar].RateState == CellTooFast
		}},
		{"0us is a known latency", fields98(map[int]string{38: "0us"}), func(l Line) bool {
			return l.Tests[result.PutChar].LatencyKnown && l.Tests[result.PutChar].LatencyNs == 1
		}},
		{"size in T", fields98(map[int]string{5: "2T"}), func(l Line) bool { return l.SizeMiB == 2<<20 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseCSVLine(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(l) {
				t.Errorf("unexpected figures: %+v", l)
			}
		})
	}
}

func TestParseCSVLineErrors(t *testing.T) {
	good := strings.Split(CSVLine(baseConfig(), baseRun()), ",")
	with := func(i int, v string) string {
		f := append([]string(nil), good...)
		f[i] = v
		return strings.Join(f, ",")
	}
	tests := []struct {
		name, line, want string
	}{
		{"empty", "", "bonnie++ CSV: empty line"},
		{"one field", "1.98", "bonnie++ CSV: 1 fields, want 48 (1.96/1.97) or 50 (1.98)"},
		{"31 fields", strings.Join(good[:31], ","), "bonnie++ CSV: 31 fields, want 48 (1.96/1.97) or 50 (1.98)"},
		{"header", CSVHeader(), "bonnie++ CSV: header line, not data"},
		{"old header", "name,file_size,putc", "bonnie++ CSV: header line, not data"},
		{"unknown format", with(0, "1.03"), `bonnie++ CSV: field 0 (format_version): "1.03" is not 1.96, 1.97 or 1.98`},
		{"1.97 with 50 fields", with(0, "1.97"), "bonnie++ CSV: format 1.97 has 50 fields, want 48"},
		{"bad rate", with(11, "fast"), `bonnie++ CSV: field 11 (put_block): "fast" is not a rate (a number, +++++ or empty)`},
		{"negative rate", with(11, "-5"), `bonnie++ CSV: field 11 (put_block): "-5" is not a rate (a number, +++++ or empty)`},
		{"NaN rate", with(19, "NaN"), `bonnie++ CSV: field 19 (seeks): "NaN" is not a rate (a number, +++++ or empty)`},
		{"huge rate", with(19, "9"+strings.Repeat("9", 400)), `bonnie++ CSV: field 19 (seeks): "9999999999999999999999999999999999999999"... is too large for a rate`},
		{"bad cpu", with(12, "5.5"), `bonnie++ CSV: field 12 (put_block_cpu): "5.5" is not a %CP (a whole number, +++ or empty)`},
		{"bad latency", with(38, "12 us"), `bonnie++ CSV: field 38 (putc_latency): "12 us" is not a latency (digits and us, ms or s)`},
		{"latency overflow", with(49, "99999999999s"), `bonnie++ CSV: field 49 (ran_del_latency): "99999999999s" is too large for a latency`},
		{"bad size", with(5, "2X"), `bonnie++ CSV: field 5 (file_size): "2X" is not a size (digits and an optional MGT unit)`},
		{"size overflow", with(5, "9999999999999T"), `bonnie++ CSV: field 5 (file_size): "9999999999999T" is too large`},
		{"bad concurrency", with(3, "-1"), `bonnie++ CSV: field 3 (concurrency): "-1" is not a whole number`},
		{"bad dirs", with(24, "x"), `bonnie++ CSV: field 24 (num_dirs): "x" is not a whole number`},
		{"zero dirs", with(24, "0"), `bonnie++ CSV: field 24 (num_dirs): "0" is below 1`},
		{"bad max", with(22, "-3"), `bonnie++ CSV: field 22 (max_size): "-3" is not a size (digits and an optional kmg unit)`},
		{"zero chunk", with(6, "0"), `bonnie++ CSV: field 6 (io_chunk_size): "0" is below 1`},
		{"first error wins", with(9, "x") + "", `bonnie++ CSV: field 9 (putc): "x" is not a rate (a number, +++++ or empty)`},
		{"control characters quoted", with(13, "a\nb"), `bonnie++ CSV: field 13 (rewrite): "a\nb" is not a rate (a number, +++++ or empty)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCSVLine(tt.line)
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n%s\nwant\n%s", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestParseCSVLine48FieldErrorNames(t *testing.T) {
	line := "1.97,1.97,h,1,1,2G,,x,99,1,1,1,1,1,1,1,1,1,1,16,,,,,1,1,1,1,1,1,1,1,1,1,1,1,,,,,,,,,,,,"
	_, err := ParseCSVLine(line)
	want := `bonnie++ CSV: field 7 (putc): "x" is not a rate (a number, +++++ or empty)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestIsHeader(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{CSVHeader(), true},
		{strings.Join(csvNames97[:], ","), true},
		{"name,file_size,putc,putc_cpu", true},
		{"1.98,2.00a,name,1", false},
		{"", false},
		{"format_version", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			if got := IsHeader(tt.line); got != tt.want {
				t.Errorf("IsHeader(%q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}

func TestParseLatency(t *testing.T) {
	tests := []struct {
		in    string
		ns    int64
		known bool
		fails bool
	}{
		{"", 0, false, false},
		{"11334us", 11_334_000, true, false},
		{"702ms", 702_000_000, true, false},
		{"142s", 142_000_000_000, true, false},
		{"0us", 1, true, false},
		{"99999us", 99_999_000, true, false},
		{"99ms", 99_999_001, true, false},
		{"100ms", 100_000_000, true, false},
		{"5ms", 5_000_000, true, false},
		{"200000us", 200_000_000, true, false},
		{"99s", 99_999_999_001, true, false},
		{"99999ms", 99_999_000_000, true, false},
		{"5s", 5_000_000_000, true, false},
		{"9223372036s", 9_223_372_036_000_000_000, true, false},
		{"9223372037s", 0, false, true},
		{"us", 0, false, true},
		{"s", 0, false, true},
		{"12", 0, false, true},
		{"12ns", 0, false, true},
		{"-5us", 0, false, true},
		{"+5us", 0, false, true},
		{"1.5ms", 0, false, true},
		{"5 s", 0, false, true},
		{"5US", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			ns, known, err := ParseLatency(tt.in)
			if (err != nil) != tt.fails || ns != tt.ns || known != tt.known {
				t.Errorf("ParseLatency(%q) = %d, %v, %v; want %d, %v, error %v", tt.in, ns, known, err, tt.ns, tt.known, tt.fails)
			}
		})
	}
}

func TestParseRateAndCPU(t *testing.T) {
	rates := []struct {
		in    string
		v     float64
		state CellState
		fails bool
	}{
		{"", 0, CellAbsent, false},
		{"+++++", 0, CellTooFast, false},
		{"2144", 2144, CellKnown, false},
		{"523.4", 523.4, CellKnown, false},
		{"0", 0, CellKnown, false},
		{"1e5", 0, CellAbsent, true},
		{".5", 0, CellAbsent, true},
		{"5.", 0, CellAbsent, true},
		{"Inf", 0, CellAbsent, true},
		{"0x10", 0, CellAbsent, true},
		{" 5", 0, CellAbsent, true},
	}
	for _, tt := range rates {
		t.Run("rate "+tt.in, func(t *testing.T) {
			v, st, err := ParseRate(tt.in)
			if (err != nil) != tt.fails || v != tt.v || st != tt.state {
				t.Errorf("ParseRate(%q) = %v, %v, %v", tt.in, v, st, err)
			}
		})
	}
	cpus := []struct {
		in    string
		v     int
		state CellState
		fails bool
	}{
		{"", 0, CellAbsent, false},
		{"+++", 0, CellTooFast, false},
		{"399", 399, CellKnown, false},
		{"-1", 0, CellAbsent, true},
		{"1.0", 0, CellAbsent, true},
		{"99999999999999999999", 0, CellAbsent, true},
	}
	for _, tt := range cpus {
		t.Run("cpu "+tt.in, func(t *testing.T) {
			v, st, err := ParseCPU(tt.in)
			if (err != nil) != tt.fails || v != tt.v || st != tt.state {
				t.Errorf("ParseCPU(%q) = %v, %v, %v", tt.in, v, st, err)
			}
		})
	}
}

// TestRoundTrip writes every golden case as CSV, parses it back and checks
// that the figures are those the line printed, and that writing the parsed
// result again gives the same line.
func TestRoundTrip(t *testing.T) {
	for _, c := range renderCases() {
		t.Run(c.name, func(t *testing.T) {
			line := CSVLine(c.cfg, c.run)
			l, err := ParseCSVLine(line)
			if err != nil {
				t.Fatal(err)
			}
			if l.BonniePlacement && c.cfg.Dirs > 1 {
				t.Errorf("clyde line read with bonnie++ placement")
			}
			cfg, run := l.Result()
			if again := CSVLine(cfg, run); again != line {
				t.Errorf("rewritten line differs\ngot  %s\nwant %s", again, line)
			}
			checkConfig(t, c.cfg, cfg)
			for i := range c.run.Tests {
				checkFigures(t, result.FSTest(i), c.cfg, c.run.Tests[i], l.Tests[i])
			}
		})
	}
}

// checkConfig compares the options a CSV line carries.
func checkConfig(t *testing.T, want, got result.FSConfig) {
	t.Helper()
	type carried struct {
		name, seedFile, version                     string
		size, maxB, minB                            int64
		chunk, seeks, procs, files, dirs, fch, conc int
		seed                                        uint32
		link                                        string
	}
	pick := func(c result.FSConfig, sanitize bool) carried {
		k := carried{c.MachineName, c.SeedFile, c.CompatVersion, c.FileSizeMiB, maxFileBytes(c), c.MinFileBytes,
			chunkBytes(c), seeks(c), seekProcs(c), c.FilesK, max(c.Dirs, 1), fileChunk(c), concurrency(c), c.Seed, c.LinkMode}
		if sanitize {
			k.name, k.seedFile, k.version = sanitizeCSV(k.name), sanitizeCSV(k.seedFile), sanitizeCSV(k.version)
		}
		if k.seedFile != "" {
			k.seed = 0
		}
		if k.size == 0 {
			k.chunk, k.seeks, k.procs = defaultChunkBytes, defaultSeeks, defaultSeekProcs
		}
		if k.maxB < 0 {
			k.minB = 0
			k.link = map[int64]string{-1: "link", -2: "symlink"}[k.maxB]
		}
		return k
	}
	if w, g := pick(want, true), pick(got, false); !reflect.DeepEqual(w, g) {
		t.Errorf("config after round trip\ngot  %+v\nwant %+v", g, w)
	}
}

// checkFigures compares one test's printed figures with the parsed ones.
func checkFigures(t *testing.T, test result.FSTest, cfg result.FSConfig, r result.FSTestResult, tf TestFigures) {
	t.Helper()
	shown := r.Ran && (test.IsIO() && cfg.FileSizeMiB > 0 || !test.IsIO() && cfg.FilesK > 0)
	var want TestFigures
	switch {
	case !shown:
	case r.TooShort:
		want.RateState, want.CPUState = CellTooFast, CellTooFast
	default:
		want.RateState = CellKnown
		want.Rate = math.Trunc(r.RatePerSec)
		if test == result.Seeks && r.RatePerSec < 1000 {
			want.Rate = math.Round(r.RatePerSec*10) / 10
		} else if test == result.Seeks {
			want.Rate = math.Round(r.RatePerSec)
		}
		if r.CPUKnown {
			want.CPU, want.CPUState = int(r.CPUPercent), CellKnown
		}
	}
	if shown && r.Latency.MaxNs > 0 {
		want.LatencyKnown = true
		want.LatencyNs = lowestWithSameText(r.Latency.MaxNs)
	}
	if tf != want {
		t.Errorf("%s: parsed %+v, want %+v", test.Name(), tf, want)
	}
}

// lowestWithSameText finds, by bisection, the smallest latency that formats
// like ns: what ParseLatency must return for FormatLatency(ns).
func lowestWithSameText(ns int64) int64 {
	text := FormatLatency(ns)
	lo, hi := int64(1), ns // FormatLatency(hi) == text
	for lo < hi {
		mid := lo + (hi-lo)/2
		if FormatLatency(mid) == text {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi
}

// TestLatencyRoundTrip checks that every latency cell FormatLatency can
// produce parses back to a value that formats to the same cell, and that
// the parsed value is the smallest such value.
func TestLatencyRoundTrip(t *testing.T) {
	values := []int64{1, 999, 1000, 1001, 11_334_567, 99_998_999, 99_999_000, 99_999_001, 99_999_999,
		100_000_000, 702_123_456, 99_999_999_000, 99_999_999_001, 100 * sec, 142*sec + 1, math.MaxInt64}
	for _, ns := range values {
		t.Run(strconv.FormatInt(ns, 10), func(t *testing.T) {
			text := FormatLatency(ns)
			got, known, err := ParseLatency(text)
			if err != nil || !known {
				t.Fatalf("ParseLatency(%q): %d, %v, %v", text, got, known, err)
			}
			if FormatLatency(got) != text || got > ns || got != lowestWithSameText(ns) {
				t.Errorf("%d → %q → %d → %q; want the smallest value, %d", ns, text, got, FormatLatency(got), lowestWithSameText(ns))
			}
		})
	}
}
