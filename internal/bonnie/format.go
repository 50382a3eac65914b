// Package bonnie renders clyde's file-system results in bonnie++ 2.00a's
// layouts (the text tables and the CSV line of format 1.98) and reads CSV
// lines written by bonnie++ 1.96, 1.97, 2.00a and by clyde itself.
//
// bonnie++'s layouts are what people already feed to bon_csv2txt,
// bon_csv2html and their own scripts, so clyde keeps them byte for byte. It
// departs from 2.00a only where 2.00a is plainly broken: the text file rates
// (2.00a prints the file count), the size field (2.00a drops a single-digit
// seek thread count) and the CSV columns io_chunk_size, num_dirs and
// file_chunk_size (2.00a leaves them empty or shifted).
//
// Zero values in result.FSConfig's ChunkBytes, Seeks, SeekProcs, FileChunk
// and Concurrency mean bonnie++'s defaults (8192, 8192, 5, 8192, 1).
package bonnie

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clydebench/clyde/result"
)

// bonnie++ 2.00a's defaults (bonnie.h.in). A column or size-field part that
// equals its default is left out, as bonnie++ does.
const (
	defaultChunkBytes = 8192 // DefaultChunkSize
	defaultSeeks      = 8192 // DefaultSeeks
	defaultSeekProcs  = 5    // DefaultSeekProcCount
	defaultFileChunk  = 8192 // file_chunk_size default
	defaultByteIOMiB  = 3    // -f without a number skips; bonnie++ moves 3 MiB a byte at a time by default
	csvFormat         = "1.98"
)

// Link-mode values of -n's max field, as bonnie++ encodes them.
const (
	maxHardLink = -1
	maxSymlink  = -2
)

// withDefault returns v, or def when v is not set (zero or negative), so a
// hand-built or partly filled FSConfig still renders bonnie++'s defaults.
func withDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// chunkBytes, seeks, seekProcs, fileChunk and concurrency resolve cfg's
// optional fields to the values bonnie++ would have used.
func chunkBytes(cfg result.FSConfig) int  { return withDefault(cfg.ChunkBytes, defaultChunkBytes) }
func seeks(cfg result.FSConfig) int       { return withDefault(cfg.Seeks, defaultSeeks) }
func seekProcs(cfg result.FSConfig) int   { return withDefault(cfg.SeekProcs, defaultSeekProcs) }
func fileChunk(cfg result.FSConfig) int   { return withDefault(cfg.FileChunk, defaultFileChunk) }
func concurrency(cfg result.FSConfig) int { return withDefault(cfg.Concurrency, 1) }

// maxFileBytes is -n's max field as bonnie++ encodes it: -1 for hard links,
// -2 for symlinks, otherwise the byte count. LinkMode wins over the number so
// that a config saying "link" renders as links whatever MaxFileBytes holds.
func maxFileBytes(cfg result.FSConfig) int64 {
	switch cfg.LinkMode {
	case "link":
		return maxHardLink
	case "symlink":
		return maxSymlink
	}
	return cfg.MaxFileBytes
}

// printSize is bonnie++'s print_size: n divided by 1024 while it divides
// evenly and a larger unit is left, followed by the unit letter; a space unit
// prints nothing. So 256 MiB is "256M", 2048 MiB "2G", 16384 bytes "16k" and
// 512 bytes "512".
func printSize(n int64, units string) string {
	ind := 0
	if n != 0 {
		for n%1024 == 0 && ind+1 < len(units) {
			n /= 1024
			ind++
		}
	}
	return strings.TrimSuffix(strconv.FormatInt(n, 10)+units[ind:ind+1], " ")
}

// FormatLatency renders a maximum latency the way bonnie++'s print_latency
// does, so clyde's Latency rows and CSV columns read like bonnie++'s: "" for 0,
// microseconds up to 0.099999 s, milliseconds up to 99.999999 s, then seconds,
// always truncated. The thresholds are bonnie++'s, applied to the exact
// nanosecond count instead of a double.
func FormatLatency(ns int64) string {
	switch {
	case ns <= 0:
		return ""
	case ns > 99_999_999_000:
		return strconv.FormatInt(ns/1_000_000_000, 10) + "s"
	case ns > 99_999_000:
		return strconv.FormatInt(ns/1_000_000, 10) + "ms"
	default:
		return strconv.FormatInt(ns/1_000, 10) + "us"
	}
}

// truncInt is C's (int) cast of a double for the values a report can meet:
// it truncates toward zero, and maps NaN to 0 and out-of-range values to the
// int64 limits instead of Go's implementation-defined result.
func truncInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// cpuShown reports whether a test's %CP is printed as a number. clyde prints
// an unknown CPU time as blank rather than as bonnie++'s always-known figure,
// because "0" would claim a measurement that was not made.
func cpuShown(r result.FSTestResult) bool { return r.CPUKnown }

// latencyText is the Latency cell of a test: empty unless the test ran.
func latencyText(r result.FSTestResult) string {
	if !r.Ran {
		return ""
	}
	return FormatLatency(r.Latency.MaxNs)
}

// sanitizeCSV makes s safe for one CSV cell: bonnie++ writes the machine name
// unescaped, so a comma would shift every later column for every reader. A
// comma becomes ';' and a control character (CR, LF, tab, ...) a space.
// Bytes are replaced one for one; multi-byte UTF-8 never contains them.
func sanitizeCSV(s string) string {
	return replaceBytes(s, func(c byte) byte {
		if c == ',' {
			return ';'
		}
		return c
	})
}

// sanitizeText replaces control characters with spaces so a machine name
// cannot break the text table's lines. Commas are harmless there and stay.
func sanitizeText(s string) string { return replaceBytes(s, func(c byte) byte { return c }) }

// replaceBytes applies f to every byte of s and turns control characters into
// spaces, copying only when something changes.
func replaceBytes(s string, f func(byte) byte) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		n := f(c)
		if c < 0x20 || c == 0x7f {
			n = ' '
		}
		if n != c && b == nil {
			b = []byte(s)
		}
		if b != nil {
			b[i] = n
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}

// fitBytes returns s cut or padded with spaces to exactly n bytes, as C's
// byte-counting printf precision does, but without splitting a UTF-8
// sequence: a cut multi-byte character is replaced by spaces.
func fitBytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s + strings.Repeat(" ", n-len(s))
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + strings.Repeat(" ", n-cut)
}
