package bonnie

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/fsbench"
	"github.com/clydebench/clyde/result"
)

// advise is the advice as clyde prints it: fsbench.Suggest's sizes.
func advise(cfg result.FSConfig, run result.FSRun, room *result.Room) string {
	next, limits := fsbench.Suggest(cfg, run, room)
	return TooShortAdvice(cfg, run, next, limits)
}

func TestTooShortAdvice(t *testing.T) {
	tests := []struct {
		name string
		edit func(*result.FSConfig, *result.FSRun)
		want string
	}{
		{"nothing too short", func(*result.FSConfig, *result.FSRun) {}, ""},
		{"nothing ran", func(c *result.FSConfig, r *result.FSRun) { *r = result.FSRun{} }, ""},
		{"block tests grow -s", func(c *result.FSConfig, r *result.FSRun) {
			c.FileSizeMiB, c.RAMMiB = 256, 0
			// 256 MiB in 0.3 s: 853 MiB/s, so about 853 MiB in a second: 1024.
			r.Tests[result.Rewrite] = finished(result.Rewrite, 256*mib, 300_000_000, 1, 1)
		}, "too short to measure (+++++): rewrite; try -s 1024"},
		{"the RAM rule keeps -s at twice -r", func(c *result.FSConfig, r *result.FSRun) {
			// A run with -r 1024 cannot be told -s 1024: validation refuses it.
			c.FileSizeMiB = 2048
			r.Tests[result.Rewrite] = finished(result.Rewrite, 256*mib, 300_000_000, 1, 1)
		}, "too short to measure (+++++): rewrite"},
		{"above 1 GiB rounds to whole GiB", func(c *result.FSConfig, r *result.FSRun) {
			c.FileSizeMiB, c.RAMMiB = 256, 0
			// 256 MiB in 0.1 s: 2560 MiB/s → 3072.
			r.Tests[result.GetBlock] = finished(result.GetBlock, 256*mib, 100_000_000, 1, 1)
			r.Tests[result.Rewrite] = finished(result.Rewrite, 256*mib, 300_000_000, 1, 1)
		}, "too short to measure (+++++): rewrite, get_block; try -s 3072"},
		{"seeks grow the seek count", func(c *result.FSConfig, r *result.FSRun) {
			// 8192 seeks in 0.028 s: 292571/s → 524288.
			r.Tests[result.Seeks] = finished(result.Seeks, 8192, 28_000_000, 1, 1)
		}, "too short to measure (+++++): seeks; try -s 2048:8k:393216"},
		{"seeks keep chunk and procs", func(c *result.FSConfig, r *result.FSRun) {
			c.ChunkBytes, c.SeekProcs = 16384, 3
			r.Tests[result.Seeks] = finished(result.Seeks, 8192, 28_000_000, 1, 1)
		}, "too short to measure (+++++): seeks; try -s 2048:16k:393216:3"},
		{"seeks and size together", func(c *result.FSConfig, r *result.FSRun) {
			c.FileSizeMiB, c.RAMMiB = 256, 0
			r.Tests[result.Rewrite] = finished(result.Rewrite, 256*mib, 300_000_000, 1, 1)
			r.Tests[result.Seeks] = finished(result.Seeks, 8192, 28_000_000, 1, 1)
		}, "too short to measure (+++++): rewrite, seeks; try -s 1024:8k:393216"},
		{"file tests grow -n", func(c *result.FSConfig, r *result.FSRun) {
			// 16K files in 0.065 s: 252061/s → 246K → 256.
			r.Tests[result.SeqStat] = finished(result.SeqStat, 16*1024, 65_000_000, 1, 1)
			r.Tests[result.RandDelete] = finished(result.RandDelete, 16*1024, 400_000_000, 1, 1)
		}, "too short to measure (+++++): seq_stat, ran_del; try -n 256"},
		{"-n keeps max, min, dirs and chunk", func(c *result.FSConfig, r *result.FSRun) {
			c.MaxFileBytes, c.MinFileBytes, c.Dirs, c.FileChunk = 4096, 512, 16, 16384
			r.Tests[result.SeqStat] = finished(result.SeqStat, 16*1024, 65_000_000, 1, 1)
		}, "too short to measure (+++++): seq_stat; try -n 256:4096:512:16:16k"},
		{"-n keeps links", func(c *result.FSConfig, r *result.FSRun) {
			c.LinkMode = "link"
			r.Tests[result.SeqCreate] = finished(result.SeqCreate, 16*1024, 65_000_000, 1, 1)
		}, "too short to measure (+++++): seq_create; try -n 256:-1"},
		{"per-char grows -f and -s", func(c *result.FSConfig, r *result.FSRun) {
			c.FileSizeMiB, c.RAMMiB = 64, 0
			// 3 MiB in 0.01 s: 300 MiB/s → 384, beyond the 64 MiB file.
			r.Tests[result.PutChar] = finished(result.PutChar, 3*mib, 10_000_000, 1, 1)
		}, "too short to measure (+++++): putc; try -s 384 -f384"},
		{"everything", func(c *result.FSConfig, r *result.FSRun) {
			c.FileSizeMiB, c.RAMMiB = 256, 0
			r.Tests[result.Rewrite] = finished(result.Rewrite, 256*mib, 300_000_000, 1, 1)
			r.Tests[result.GetBlock] = finished(result.GetBlock, 256*mib, 100_000_000, 1, 1)
			r.Tests[result.SeqStat] = finished(result.SeqStat, 16*1024, 126_000_000, 1, 1)
		}, "too short to measure (+++++): rewrite, get_block, seq_stat; try -s 3072 -n 128"},
		{"no rate to scale from", func(c *result.FSConfig, r *result.FSRun) {
			r.Tests[result.Rewrite] = result.FSTestResult{Ran: true, TooShort: true}
		}, "too short to measure (+++++): rewrite"},
		{"absurd rate is capped at -n's maximum", func(c *result.FSConfig, r *result.FSRun) {
			c.RAMMiB = 0
			r.Tests[result.SeqCreate] = finished(result.SeqCreate, 1<<62, 1, 1, 1)
		}, "too short to measure (+++++): seq_create; try -n 1048576 (-n is at its maximum of 1048576)"},
		{"the RAM rule of -n", func(c *result.FSConfig, r *result.FSRun) {
			r.Tests[result.SeqCreate] = finished(result.SeqCreate, 1<<62, 1, 1, 1)
		}, "too short to measure (+++++): seq_create; try -n 12288 (-n kept to 12288 by the RAM rule of -r 1024)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, run := baseConfig(), baseRun()
			tt.edit(&cfg, &run)
			got := advise(cfg, run, nil)
			if got != tt.want {
				t.Errorf("TooShortAdvice =\n%q\nwant\n%q", got, tt.want)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("advice spans lines")
			}
		})
	}
}

// TestTooShortAdviceIsEnough checks that the suggested amounts, at the
// measured rates, would run at least bonnie++'s 0.5 s.
func TestTooShortAdviceIsEnough(t *testing.T) {
	cfg, run := baseConfig(), baseRun()
	cfg.FileSizeMiB = 256
	run.Tests[result.Rewrite] = finished(result.Rewrite, 256*mib, 333_000_000, 1, 1)
	run.Tests[result.SeqStat] = finished(result.SeqStat, 16*1024, 77_000_000, 1, 1)
	run.Tests[result.Seeks] = finished(result.Seeks, 8192, 31_000_000, 1, 1)
	got := advise(cfg, run, nil)
	var sizeMiB, seekCount, filesK float64
	for _, opt := range strings.Split(strings.SplitN(got, "; try ", 2)[1], " -") {
		opt = strings.TrimPrefix(opt, "-")
		switch {
		case strings.HasPrefix(opt, "s "):
			f := strings.Split(strings.TrimPrefix(opt, "s "), ":")
			sizeMiB = atof(t, f[0])
			seekCount = atof(t, f[2])
		case strings.HasPrefix(opt, "n "):
			filesK = atof(t, strings.TrimPrefix(opt, "n "))
		}
	}
	if secs := sizeMiB * 1024 / run.Tests[result.Rewrite].RatePerSec; secs < 0.5 {
		t.Errorf("-s %v runs rewrite %.2f s", sizeMiB, secs)
	}
	if secs := seekCount / run.Tests[result.Seeks].RatePerSec; secs < 0.5 {
		t.Errorf("%v seeks run %.2f s", seekCount, secs)
	}
	if secs := filesK * 1024 / run.Tests[result.SeqStat].RatePerSec; secs < 0.5 {
		t.Errorf("-n %v runs seq_stat %.2f s", filesK, secs)
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, _, err := ParseRate(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
