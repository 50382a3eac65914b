package bonnie

import (
	"strconv"
	"strings"

	"github.com/clydebench/clyde/result"
)

// TooShortAdvice explains the "+++++" cells of a run in one line (no
// newline): which tests ran under result.MinTimeNs and, when next differs
// from cfg, the options that would make them measurable: next is what
// fsbench.Suggest proposes from the rates measured this time, within the
// free space and inodes the run found, and limits says what kept a size
// short of what its tests needed. bonnie++ gives fixed amounts of work and
// leaves the user to guess; this turns the guess into a number the
// preflight accepts.
//
// The options use bonnie++'s forms: -s SIZE in MiB, or -s SIZE:CHUNK:SEEKS[:PROCS]
// when the seek count changes; -n FILES[:MAX:MIN:DIRS:CHUNK] with FILES in
// units of 1024; -fN (MiB) for the per-char tests. The other fields keep
// the run's values. For example:
//
//	too short to measure (+++++): rewrite, get_block, seq_stat; try -s 4096 -n 128
//	too short to measure (+++++): seq_stat; try -n 384 (-n kept to 384 by the 524,277 free inodes in /srv, so seq_stat about 0.7 s)
//
// It returns "" when no test was too short.
func TooShortAdvice(cfg result.FSConfig, run result.FSRun, next result.FSConfig, limits []string) string {
	var names []string
	for i, r := range run.Tests {
		if r.Ran && r.TooShort {
			names = append(names, result.FSTest(i).Name())
		}
	}
	if len(names) == 0 {
		return ""
	}
	msg := "too short to measure (+++++): " + strings.Join(names, ", ")
	var opts []string
	switch {
	case seeks(next) != seeks(cfg):
		s := "-s " + strconv.FormatInt(next.FileSizeMiB, 10) + ":" + printSize(int64(chunkBytes(next)), " km") +
			":" + strconv.Itoa(seeks(next))
		if p := seekProcs(next); p != defaultSeekProcs {
			s += ":" + strconv.Itoa(p)
		}
		opts = append(opts, s)
	case next.FileSizeMiB != cfg.FileSizeMiB:
		opts = append(opts, "-s "+strconv.FormatInt(next.FileSizeMiB, 10))
	}
	if next.ByteIOMiB > 0 && next.ByteIOMiB != cfg.ByteIOMiB {
		opts = append(opts, "-f"+strconv.FormatInt(next.ByteIOMiB, 10))
	}
	if next.FilesK != cfg.FilesK {
		opts = append(opts, "-n "+fileSpecOption(next, int64(next.FilesK)))
	}
	if len(opts) > 0 {
		msg += "; try " + strings.Join(opts, " ")
	}
	if len(limits) > 0 {
		if len(opts) == 0 {
			msg += "; no larger size fits"
		}
		msg += " (" + strings.Join(limits, "; ") + ")"
	}
	return msg
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
	if cfg.Auto != nil {
		opts = append(opts, "(--auto)")
	}
	return strings.Join(opts, " ")
}
