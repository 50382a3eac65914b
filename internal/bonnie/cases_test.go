package bonnie

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/bonnie")

// testdataDir holds the golden files and the copied bonnie++ reference outputs.
const testdataDir = "../../testdata/bonnie"

const (
	ms  = int64(1_000_000)
	sec = int64(1_000_000_000)
	mib = int64(1 << 20)
)

// finished builds one test result the way the engine does, from raw work, a
// fixed elapsed time and CPU time, then Finish: work is bytes for the five
// IO tests and operations (seeks, files) otherwise.
func finished(t result.FSTest, work, elapsedNs, cpuNs, maxLatNs int64) result.FSTestResult {
	r := result.FSTestResult{
		Test:      t,
		Ran:       true,
		ElapsedNs: elapsedNs,
		CPUUserNs: cpuNs / 3,
		CPUSysNs:  cpuNs - cpuNs/3,
		CPUKnown:  true,
		Latency:   latency.Summary{Count: 1, MinNs: 1000, MaxNs: maxLatNs},
	}
	if t.IsIO() && t != result.Seeks {
		r.Bytes = work
	} else {
		r.Ops = work
	}
	r.Finish()
	return r
}

// notRun is a test that was skipped (-f, -s 0, -n 0).
func notRun(t result.FSTest) result.FSTestResult {
	r := result.FSTestResult{Test: t}
	r.Finish()
	return r
}

// baseConfig is bonnie++'s defaults with -s 2048 -n 16.
func baseConfig() result.FSConfig {
	return result.FSConfig{
		Dir: "/mnt/test", MachineName: "testbox", FileSizeMiB: 2048, ChunkBytes: 8192,
		Seeks: 8192, SeekProcs: 5, ByteIOMiB: 3, FilesK: 16, Dirs: 1, FileChunk: 8192,
		Concurrency: 1, RAMMiB: 1024, Seed: 1795979251, Iterations: 1, CompatVersion: "clyde",
	}
}

// baseRun is a run of baseConfig where every test took long enough to
// measure, with rates in every text unit.
func baseRun() result.FSRun {
	var run result.FSRun
	run.Seed = 1795979251
	run.Tests[result.PutChar] = finished(result.PutChar, 3*mib, 1_432_800_000, 1_045_944_000, 11_334_000)
	run.Tests[result.PutBlock] = finished(result.PutBlock, 2048*mib, 12_875_000_000, 7_725_000_000, 6_587_000)
	run.Tests[result.Rewrite] = finished(result.Rewrite, 2048*mib, 1_392_700_000, 668_496_000, 1_803_000)
	run.Tests[result.GetChar] = finished(result.GetChar, 3*mib, 854_700_000, 837_606_000, 5_512_000)
	run.Tests[result.GetBlock] = finished(result.GetBlock, 2048*mib, 4_921_000_000, 2_312_870_000, 429_000)
	run.Tests[result.Seeks] = finished(result.Seeks, 8192, 624_152_000, 268_385_360, 5_774_000)
	run.Tests[result.SeqCreate] = finished(result.SeqCreate, 16*1024, 3_204_000_000, 2_563_200_000, 4_004_000)
	run.Tests[result.SeqStat] = finished(result.SeqStat, 16*1024, 711_000_000, 703_890_000, 1_624_000)
	run.Tests[result.SeqDelete] = finished(result.SeqDelete, 16*1024, 1_636_600_000, 294_588_000, 43_673_000)
	run.Tests[result.RandCreate] = finished(result.RandCreate, 16*1024, 2_496_500_000, 1_922_305_000, 7_799_000)
	run.Tests[result.RandStat] = finished(result.RandStat, 16*1024, 930_100_000, 902_197_000, 4_071_000)
	run.Tests[result.RandDelete] = finished(result.RandDelete, 16*1024, 1_891_500_000, 378_300_000, 89_805_000)
	return run
}

// renderCase is one configuration the golden files cover.
type renderCase struct {
	name string
	cfg  result.FSConfig
	run  result.FSRun
}

// renderCases are the hand-built results behind the golden files: every
// option that changes bonnie++'s layout, and every cell form.
func renderCases() []renderCase {
	var cases []renderCase
	add := func(name string, edit func(*result.FSConfig, *result.FSRun)) {
		cfg, run := baseConfig(), baseRun()
		edit(&cfg, &run)
		cases = append(cases, renderCase{name, cfg, run})
	}
	add("defaults", func(*result.FSConfig, *result.FSRun) {})
	add("no-io", func(cfg *result.FSConfig, run *result.FSRun) { // -s 0
		cfg.FileSizeMiB = 0
		for t := result.PutChar; t <= result.Seeks; t++ {
			run.Tests[t] = notRun(t)
		}
	})
	add("no-files", func(cfg *result.FSConfig, run *result.FSRun) { // -n 0
		cfg.FilesK = 0
		for t := result.SeqCreate; t <= result.RandDelete; t++ {
			run.Tests[t] = notRun(t)
		}
	})
	add("no-per-char", func(cfg *result.FSConfig, run *result.FSRun) { // -f
		cfg.ByteIOMiB = 0
		run.Tests[result.PutChar] = notRun(result.PutChar)
		run.Tests[result.GetChar] = notRun(result.GetChar)
	})
	add("chunk-seeks-procs", func(cfg *result.FSConfig, run *result.FSRun) { // -s 64:16k:1000:3
		cfg.MachineName = "chunk"
		cfg.FileSizeMiB, cfg.ChunkBytes, cfg.Seeks, cfg.SeekProcs = 64, 16384, 1000, 3
		run.Tests[result.Seeks] = finished(result.Seeks, 1000, 1_910_000_000, 2_101_000_000, 21_409_000)
	})
	add("chunk-1m-seeks-procs-12", func(cfg *result.FSConfig, _ *result.FSRun) { // -s 2g:1m:8192:12
		cfg.ChunkBytes, cfg.SeekProcs = 1<<20, 12
	})
	add("concurrency-2", func(cfg *result.FSConfig, _ *result.FSRun) { // -c 2
		cfg.MachineName = "conc"
		cfg.Concurrency = 2
	})
	add("links", func(cfg *result.FSConfig, _ *result.FSRun) { // -n 16:-1
		cfg.LinkMode, cfg.MaxFileBytes = "link", -1
	})
	add("symlinks", func(cfg *result.FSConfig, _ *result.FSRun) { // -n 16:-2
		cfg.LinkMode, cfg.MaxFileBytes = "symlink", -2
	})
	add("dirs-sizes-chunk", func(cfg *result.FSConfig, _ *result.FSRun) { // -n 16:4096:512:4:16k
		cfg.MaxFileBytes, cfg.MinFileBytes, cfg.Dirs, cfg.FileChunk = 4096, 512, 4, 16384
	})
	add("max-only", func(cfg *result.FSConfig, _ *result.FSRun) { // -n 16:4096
		cfg.MaxFileBytes = 4096
	})
	add("too-short", func(cfg *result.FSConfig, run *result.FSRun) {
		cfg.FileSizeMiB = 256
		run.Tests[result.PutBlock] = finished(result.PutBlock, 256*mib, 1_609_000_000, 965_400_000, 6_587_000)
		run.Tests[result.Rewrite] = finished(result.Rewrite, 256*mib, 301_000_000, 150_000_000, 1_477_000)
		run.Tests[result.GetBlock] = finished(result.GetBlock, 256*mib, 95_000_000, 60_000_000, 4_064_000)
		run.Tests[result.Seeks] = finished(result.Seeks, 8192, 27_966_000, 30_000_000, 11_710_000)
		run.Tests[result.SeqStat] = finished(result.SeqStat, 16*1024, 65_000_000, 64_000_000, 4_240_000)
		run.Tests[result.RandStat] = finished(result.RandStat, 16*1024, 81_000_000, 80_000_000, 4_488_000)
	})
	add("long-name", func(cfg *result.FSConfig, _ *result.FSRun) {
		cfg.MachineName = "a-very-long-machine-name.example.org"
	})
	add("long-size-field", func(cfg *result.FSConfig, _ *result.FSRun) { // size field of 19+ bytes
		cfg.FileSizeMiB, cfg.ChunkBytes, cfg.Concurrency, cfg.Seeks, cfg.SeekProcs = 1536, 1<<20, 200, 100000, 12
	})
	add("name-needs-escaping", func(cfg *result.FSConfig, _ *result.FSRun) {
		cfg.MachineName = "rack 3,slot\r\n7"
		cfg.SeedFile = "seeds,v2.bin"
	})
	add("utf8-name", func(cfg *result.FSConfig, _ *result.FSRun) {
		cfg.MachineName = "größe-ñandú-機械-host"
	})
	add("latency-units", func(_ *result.FSConfig, run *result.FSRun) {
		run.Tests[result.PutChar].Latency.MaxNs = 999                 // 0us
		run.Tests[result.PutBlock].Latency.MaxNs = 99_999_000         // 99999us, the last us value
		run.Tests[result.Rewrite].Latency.MaxNs = 99_999_001          // 99ms
		run.Tests[result.GetChar].Latency.MaxNs = 1_549 * ms          // 1549ms
		run.Tests[result.GetBlock].Latency.MaxNs = 99_999_999_000     // 99999ms, the last ms value
		run.Tests[result.Seeks].Latency.MaxNs = 142*sec + 900*ms      // 142s
		run.Tests[result.SeqCreate].Latency.MaxNs = 0                 // empty
		run.Tests[result.SeqStat].Latency.MaxNs = 100_000_000_000_000 // 100000s, wider than 9
	})
	add("rate-units", func(cfg *result.FSConfig, run *result.FSRun) {
		cfg.CompatVersion = "2.00a"
		cfg.FileSizeMiB = 1024
		run.Tests[result.PutChar] = finished(result.PutChar, 3*mib, 122_880_000_000, 37_000_000_000, 1549*ms) // 25k
		run.Tests[result.PutBlock] = finished(result.PutBlock, 1024*mib, 33_219_000_000, 1e10, 103*ms)        // 30.8m
		run.Tests[result.Rewrite] = finished(result.Rewrite, 1024*mib, 10_244_000_000, 1e9, 10*ms)            // 99.96m: %4.1f prints 100.0m, as in bonnie++
		run.Tests[result.GetChar] = finished(result.GetChar, 6*mib, 614_500_000, 3e8, 2*ms)                   // 9998k (-f 6)
		run.Tests[result.GetBlock] = finished(result.GetBlock, 1024*mib, 997_000_000, 5e8, 4*ms)              // 1.0g
		run.Tests[result.Seeks] = finished(result.Seeks, 8192, 15_651_000_000, 4e9, 21*ms)                    // 523.4
		run.Tests[result.SeqCreate].CPUKnown = false                                                          // blank %CP
		run.Tests[result.SeqCreate].CPUPercent = 0
	})
	add("other-version", func(cfg *result.FSConfig, _ *result.FSRun) {
		cfg.CompatVersion = "clyde-0.1.0"
		cfg.MachineName = ""
	})
	return cases
}

// golden compares got with the golden file name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(testdataDir, name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// readReference reads a copied bonnie++ output file.
func readReference(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, "reference", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
