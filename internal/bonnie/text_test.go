package bonnie

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestWriteTextGolden(t *testing.T) {
	for _, c := range renderCases() {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteText(&b, c.cfg, c.run); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".txt", b.String())
		})
	}
}

// TestWriteTextLineWidths checks the fixed geometry every golden file must
// have, so an -update cannot quietly accept a shifted column.
func TestWriteTextLineWidths(t *testing.T) {
	for _, c := range renderCases() {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteText(&b, c.cfg, c.run); err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				switch {
				case strings.HasPrefix(line, "Version "):
					continue // the version is free-length
				case c.name == "rate-units" || c.name == "latency-units" || c.name == "long-size-field":
					continue // cases that overflow a column on purpose, as bonnie++ does
				case line == "":
					continue // the -n 0 line
				}
				if len(line) != 79 && !strings.HasPrefix(line, "Latency") || strings.HasPrefix(line, "Latency") && len(line) != 77 {
					t.Errorf("line %d is %d bytes: %q", i, len(line), line)
				}
			}
		})
	}
}

// TestWriteTextReference renders the CSV line of each real bonnie++ 2.00a run
// and compares it with that run's text report: every byte must match except
// the file-rates row, where 2.00a printed the file count (262144) and clyde
// prints the rates from the CSV.
func TestWriteTextReference(t *testing.T) {
	tests := []struct {
		file      string
		fileRates string // the file row as 2.00a should have printed it
	}{
		{"bonnie-2.00a-ext4.txt", "    256:4096:512/16 33148  80 230436  99 10011  18 46859  77 176067  97  8662  20"},
		{"bonnie-2.00a-btrfs.txt", "    256:4096:512/16  4258  10 102355  41 44095  81 20674  51 39187  25 11273  40"},
		{"bonnie-2.00a-tmpfs.txt", "    256:4096:512/16 239201  99 330198  99 274269  96 203615  99 264488  99 169623  96"},
		{"bonnie-2.00a-ntfs3g.txt", "    256:4096:512/16  3492  30  2453  36 13601  21  8110  26 15725  22 17091  18"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(readReference(t, tt.file), "\n"), "\n")
			if len(lines) != 11 {
				t.Fatalf("reference has %d lines, want 10 of text and the CSV line", len(lines))
			}
			const fileRow = 8
			if !strings.Contains(lines[fileRow], "262144") {
				t.Fatalf("line %d of the reference is not the buggy file row: %q", fileRow, lines[fileRow])
			}
			lines[fileRow] = tt.fileRates
			want := strings.Join(lines[:10], "\n") + "\n"

			l, err := ParseCSVLine(lines[10])
			if err != nil {
				t.Fatal(err)
			}
			cfg, run := l.Result()
			var b strings.Builder
			if err := WriteText(&b, cfg, run); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != want {
				t.Errorf("text differs from bonnie++'s\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

func TestIORowLabel(t *testing.T) {
	tests := []struct {
		name, machine, size, want string
	}{
		{"reference", "testbox", "256M", "testbox        256M"},
		{"short size", "lab-ext4", "2G", "lab-ext4         2G"},
		{"name cut", "a-very-long-machine-name", "2G", "a-very-long-mach 2G"},
		{"chunk and seeks", "chunk", "64M:16k::1000:3", "chu 64M:16k::1000:3"},
		{"bonnie example", "chunk", "64M:16k::1000", "chunk 64M:16k::1000"},
		{"concurrency", "conc", "64M::2", "conc         64M::2"},
		{"empty name", "", "2G", "                 2G"},
		{"size of 18", "host", "123456789012345678", " 123456789012345678"},
		{"size of 19", "host", "1234567890123456789", "1234567890123456789"},
		{"size of 20", "host", "12345678901234567890", "12345678901234567890"},
		{"utf8 whole", "ab\u00e9cdefghijklmnop", "2G", "ab\u00e9cdefghijklmn 2G"},
		{"utf8 cut before", "abcdefghijklmno\u00e9", "2G", "abcdefghijklmno  2G"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ioRowLabel(tt.machine, tt.size)
			if got != tt.want {
				t.Errorf("ioRowLabel(%q, %q) = %q, want %q", tt.machine, tt.size, got, tt.want)
			}
			if len(tt.size) < 19 && len(got) != 19 {
				t.Errorf("label is %d bytes, want 19", len(got))
			}
		})
	}
}

func TestIOSizeField(t *testing.T) {
	tests := []struct {
		name string
		edit func(*result.FSConfig)
		want string
	}{
		{"defaults", func(*result.FSConfig) {}, "2G"},
		{"MiB", func(c *result.FSConfig) { c.FileSizeMiB = 1536 }, "1536M"},
		{"chunk", func(c *result.FSConfig) { c.ChunkBytes = 16384 }, "2G:16k"},
		{"chunk 1m", func(c *result.FSConfig) { c.ChunkBytes = 1 << 20 }, "2G:1m"},
		{"chunk 512", func(c *result.FSConfig) { c.ChunkBytes = 512 }, "2G:512"},
		{"concurrency", func(c *result.FSConfig) { c.Concurrency = 2 }, "2G::2"},
		{"seeks", func(c *result.FSConfig) { c.Seeks = 1000 }, "2G:::1000"},
		{"single-digit procs kept", func(c *result.FSConfig) { c.ChunkBytes, c.Seeks, c.SeekProcs = 16384, 1000, 3 }, "2G:16k::1000:3"},
		{"procs only", func(c *result.FSConfig) { c.SeekProcs = 12 }, "2G::::12"},
		{"zeros mean defaults", func(c *result.FSConfig) { c.ChunkBytes, c.Seeks, c.SeekProcs, c.Concurrency = 0, 0, 0, 0 }, "2G"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			tt.edit(&cfg)
			if got := ioSizeField(cfg); got != tt.want {
				t.Errorf("ioSizeField = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTextRate(t *testing.T) {
	tests := []struct {
		name string
		test result.FSTest
		rate float64
		want string
	}{
		{"KiB", result.PutChar, 2144.9, " 2144k"},
		{"KiB edge", result.PutBlock, 9999.99, " 9999k"},
		{"MiB one decimal", result.PutBlock, 31567, " 30.8m"},
		{"MiB rounded", result.PutBlock, 434750, "  425m"},
		{"MiB 999.5 rounds to 1000", result.PutBlock, 999.5 * 1024, " 1000m"},
		{"GiB", result.Rewrite, 1505803, "  1.4g"},
		{"GiB edge", result.GetBlock, 1000 * 1024, "  1.0g"},
		{"seeks integer", result.Seeks, 13125.4, " 13125"},
		{"seeks decimal", result.Seeks, 523.44, " 523.4"},
		{"seeks tiny", result.Seeks, 0.04, "   0.0"},
		{"files", result.SeqCreate, 33148.9, " 33148"},
		{"files wide", result.SeqStat, 230436, " 230436"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textRate(tt.test, tt.rate); got != tt.want {
				t.Errorf("textRate(%v, %v) = %q, want %q", tt.test.Name(), tt.rate, got, tt.want)
			}
		})
	}
}

func TestTextCell(t *testing.T) {
	ran := func(rate, cpu float64, known, short bool) result.FSTestResult {
		return result.FSTestResult{Ran: true, RatePerSec: rate, CPUPercent: cpu, CPUKnown: known, TooShort: short}
	}
	tests := []struct {
		name string
		r    result.FSTestResult
		want string
	}{
		{"not run", result.FSTestResult{}, "          "},
		{"too short", ran(1e6, 50, true, true), " +++++ +++"},
		{"cpu truncated", ran(2144, 73.99, true, false), " 2144k  73"},
		{"cpu over 100", ran(2144, 399.5, true, false), " 2144k 399"},
		{"cpu unknown is blank", ran(2144, 0, false, false), " 2144k    "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textCell(result.PutChar, tt.r); got != tt.want {
				t.Errorf("textCell = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteTextSections(t *testing.T) {
	t.Run("-n 0 leaves one empty line", func(t *testing.T) {
		cfg, run := baseConfig(), baseRun()
		cfg.FilesK = 0
		var b strings.Builder
		if err := WriteText(&b, cfg, run); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), "us\n\n") || strings.Contains(b.String(), "Create") {
			t.Errorf("want the IO table then one empty line, got\n%s", b.String())
		}
	})
	t.Run("-s 0 prints no IO table", func(t *testing.T) {
		cfg, run := baseConfig(), baseRun()
		cfg.FileSizeMiB = 0
		var b strings.Builder
		if err := WriteText(&b, cfg, run); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "Sequential Output") || !strings.HasPrefix(b.String(), "Version clyde       ------Sequential Create") {
			t.Errorf("want only the file table, got\n%s", b.String())
		}
	})
	t.Run("write error is returned", func(t *testing.T) {
		err := WriteText(failingWriter{}, baseConfig(), baseRun())
		if !errors.Is(err, errWrite) {
			t.Errorf("err = %v, want errWrite", err)
		}
	})
}

var errWrite = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestFormatLatency(t *testing.T) {
	tests := []struct {
		ns   int64
		want string
	}{
		{0, ""},
		{-5, ""},
		{1, "0us"},
		{999, "0us"},
		{1000, "1us"},
		{11_334_999, "11334us"},
		{99_999_000, "99999us"},
		{99_999_001, "99ms"},
		{100_000_000, "100ms"},
		{702_900_000, "702ms"},
		{99_999_999_000, "99999ms"},
		{99_999_999_001, "99s"},
		{142_999_999_999, "142s"},
	}
	for _, tt := range tests {
		t.Run(strconv.FormatInt(tt.ns, 10), func(t *testing.T) {
			if got := FormatLatency(tt.ns); got != tt.want {
				t.Errorf("FormatLatency(%d) = %q, want %q", tt.ns, got, tt.want)
			}
		})
	}
}

func TestPrintSize(t *testing.T) {
	tests := []struct {
		n     int64
		units string
		want  string
	}{
		{256, "MG", "256M"},
		{2048, "MG", "2G"},
		{1536, "MG", "1536M"},
		{1 << 20, "MG", "1024G"},
		{8192, " km", "8k"},
		{16384, " km", "16k"},
		{1 << 20, " km", "1m"},
		{1 << 30, " km", "1024m"},
		{512, " km", "512"},
		{0, " km", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := printSize(tt.n, tt.units); got != tt.want {
				t.Errorf("printSize(%d, %q) = %q, want %q", tt.n, tt.units, got, tt.want)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct {
		in, csv, text string
	}{
		{"testbox", "testbox", "testbox"},
		{"a,b", "a;b", "a,b"},
		{"a\r\nb\tc", "a  b c", "a  b c"},
		{"größe,x", "größe;x", "größe,x"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := sanitizeCSV(tt.in); got != tt.csv {
				t.Errorf("sanitizeCSV(%q) = %q, want %q", tt.in, got, tt.csv)
			}
			if got := sanitizeText(tt.in); got != tt.text {
				t.Errorf("sanitizeText(%q) = %q, want %q", tt.in, got, tt.text)
			}
		})
	}
}
