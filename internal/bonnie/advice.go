package bonnie

import (
	"math"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/result"
)

// adviceTargetSec is how long TooShortAdvice aims a test to run: twice
// bonnie++'s 0.5 s floor, so a rerun still measures when it goes somewhat
// faster than this one did.
const adviceTargetSec = 2 * float64(result.MinTimeNs) / 1e9

// adviceCap bounds every suggestion so a test that took nanoseconds cannot
// produce an absurd or overflowing number.
const adviceCap = 1 << 40

// TooShortAdvice explains the "+++++" cells of a run in one line (no
// newline): which tests ran under result.MinTimeNs and which options would
// make them run about a second, computed from the rates measured this time.
// bonnie++ gives fixed amounts of work and leaves the user to guess; this
// turns the guess into a number. It returns "" when no test was too short.
//
// The suggestions use bonnie++'s option forms: -s SIZE in MiB (a power of two
// up to 1024, then a multiple of 1024), or -s SIZE:CHUNK:SEEKS[:PROCS] when
// the seek count is what must grow; -n FILES[:MAX:MIN:DIRS:CHUNK] with FILES
// in units of 1024 rounded up to a power of two; -f MiB (power of two) for
// the per-char tests. The other fields keep the run's values. For example:
//
//	too short to measure (+++++): rewrite, get_block, seq_stat; try -s 4096 -n 128
func TooShortAdvice(cfg result.FSConfig, run result.FSRun) string {
	var names []string
	var needSize, needByteIO, needSeeks, needFilesK float64
	for i, r := range run.Tests {
		if !r.Ran || !r.TooShort {
			continue
		}
		t := result.FSTest(i)
		names = append(names, t.Name())
		rate := r.RatePerSec
		if !(rate > 0) || math.IsInf(rate, 0) {
			continue // nothing to scale from
		}
		work := rate * adviceTargetSec // KiB, seeks or files in the target time
		switch t {
		case result.PutChar, result.GetChar:
			needByteIO = max(needByteIO, work/1024)
		case result.PutBlock, result.Rewrite, result.GetBlock:
			needSize = max(needSize, work/1024)
		case result.Seeks:
			needSeeks = max(needSeeks, work)
		default:
			needFilesK = max(needFilesK, work/1024)
		}
	}
	if len(names) == 0 {
		return ""
	}
	msg := "too short to measure (+++++): " + strings.Join(names, ", ")
	var opts []string
	sizeMiB := cfg.FileSizeMiB
	if needSize > 0 {
		sizeMiB = max(sizeMiB, roundSizeMiB(needSize))
	}
	var byteIOMiB int64
	if needByteIO > 0 {
		byteIOMiB = max(cfg.ByteIOMiB, roundPow2(needByteIO))
		// bonnie++ clamps the per-char amount to the file size.
		sizeMiB = max(sizeMiB, roundSizeMiB(float64(byteIOMiB)))
	}
	seekCount := int64(seeks(cfg))
	if needSeeks > 0 {
		seekCount = max(seekCount, roundPow2(needSeeks))
	}
	switch {
	case seekCount != int64(seeks(cfg)):
		s := "-s " + strconv.FormatInt(sizeMiB, 10) + ":" + printSize(int64(chunkBytes(cfg)), " km") +
			":" + strconv.FormatInt(seekCount, 10)
		if p := seekProcs(cfg); p != defaultSeekProcs {
			s += ":" + strconv.Itoa(p)
		}
		opts = append(opts, s)
	case sizeMiB != cfg.FileSizeMiB:
		opts = append(opts, "-s "+strconv.FormatInt(sizeMiB, 10))
	}
	if byteIOMiB > 0 && byteIOMiB != cfg.ByteIOMiB {
		opts = append(opts, "-f"+strconv.FormatInt(byteIOMiB, 10))
	}
	if needFilesK > 0 {
		if k := roundPow2(needFilesK); k > int64(cfg.FilesK) {
			opts = append(opts, "-n "+fileSpecOption(cfg, k))
		}
	}
	if len(opts) > 0 {
		msg += "; try " + strings.Join(opts, " ")
	}
	return msg
}

// roundPow2 is the smallest power of two at or above v (at least 1, at most
// adviceCap): round numbers that leave headroom.
func roundPow2(v float64) int64 {
	n := int64(1)
	for float64(n) < v && n < adviceCap {
		n *= 2
	}
	return n
}

// roundSizeMiB rounds a file size up to a power of two up to 1 GiB and to
// whole GiB above, the sizes people pass to -s.
func roundSizeMiB(v float64) int64 {
	if v <= 1024 {
		return roundPow2(v)
	}
	return int64(math.Ceil(min(v, adviceCap)/1024)) * 1024
}

// fileSpecOption is -n's argument for filesK thousand files and the run's
// other -n fields, trailing defaults dropped: 128, 128:4096:512,
// 128:0:0:16, 16:-1 (hard links).
func fileSpecOption(cfg result.FSConfig, filesK int64) string {
	parts := []string{
		strconv.FormatInt(filesK, 10),
		strconv.FormatInt(maxFileBytes(cfg), 10),
		strconv.FormatInt(cfg.MinFileBytes, 10),
		strconv.Itoa(max(cfg.Dirs, 1)),
		printSize(int64(fileChunk(cfg)), " km"),
	}
	defaults := []string{"", "0", "0", "1", printSize(defaultFileChunk, " km")}
	for len(parts) > 1 && parts[len(parts)-1] == defaults[len(parts)-1] {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, ":")
}

// Flags are the options that decide what an fs run measured, spelt as
// bonnie++ takes them, defaults left out: "-s 2048 -n 16",
// "-s 4096:16k:65536 -f8 -n 256:4096:512:16 -b -D -c 4". History listings
// and the HTML page's Runs table show them, so that runs made with
// different options do not look alike.
func Flags(cfg result.FSConfig) string {
	var opts []string
	if cfg.FileSizeMiB > 0 {
		parts := []string{strconv.FormatInt(cfg.FileSizeMiB, 10), printSize(int64(chunkBytes(cfg)), " km"),
			strconv.Itoa(seeks(cfg)), strconv.Itoa(seekProcs(cfg))}
		defaults := []string{"", printSize(defaultChunkBytes, " km"), strconv.Itoa(defaultSeeks), strconv.Itoa(defaultSeekProcs)}
		for len(parts) > 1 && parts[len(parts)-1] == defaults[len(parts)-1] {
			parts = parts[:len(parts)-1]
		}
		opts = append(opts, "-s "+strings.Join(parts, ":"))
		switch {
		case cfg.ByteIOMiB == 0:
			opts = append(opts, "-f")
		case cfg.ByteIOMiB != defaultByteIOMiB:
			opts = append(opts, "-f"+strconv.FormatInt(cfg.ByteIOMiB, 10))
		}
	} else {
		opts = append(opts, "-s 0")
	}
	if cfg.FilesK > 0 {
		opts = append(opts, "-n "+fileSpecOption(cfg, int64(cfg.FilesK)))
	} else {
		opts = append(opts, "-n 0")
	}
	if cfg.SyncWrites {
		opts = append(opts, "-b")
	}
	if cfg.Direct {
		opts = append(opts, "-D")
	}
	if c := concurrency(cfg); c > 1 {
		opts = append(opts, "-c "+strconv.Itoa(c))
	}
	if cfg.Iterations > 1 {
		opts = append(opts, "-x "+strconv.Itoa(cfg.Iterations))
	}
	if cfg.RandomData {
		opts = append(opts, "--random-data")
	}
	return strings.Join(opts, " ")
}
