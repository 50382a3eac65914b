package fsbench

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// smallOptions is a whole suite small enough for a unit test.
func smallOptions(dir string) Options {
	o := DefaultOptions()
	o.Dir = dir
	o.SizeMiB = 4
	o.RAMMiB = 0
	o.ByteIOMiB = 0 // one-byte calls are slow; the cases that need them set it
	o.Seeks = 200
	o.SeekProcs = 3
	o.FilesK = 1
	o.MaxFileBytes = 2048
	o.MinFileBytes = 16
	o.Dirs = 3
	o.Seed = 7
	o.SeedSet = true
	return o
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("%s holds %v after the run, want nothing", dir, names)
	}
}

func TestRunWholeSuite(t *testing.T) {
	tests := []struct {
		name   string
		modify func(o *Options)
	}{
		{"defaults shape", func(o *Options) { o.ByteIOMiB = 1 }},
		{"one directory", func(o *Options) { o.Dirs = 1 }},
		{"two copies", func(o *Options) { o.Concurrency = 2 }},
		{"sync writes", func(o *Options) { o.SyncWrites = true; o.FilesK = 1; o.MaxFileBytes = 0; o.MinFileBytes = 0 }},
		{"random data", func(o *Options) { o.RandomData = true }},
		{"hard links across dirs", func(o *Options) { o.MaxFileBytes, o.MinFileBytes = LinkHard, 0 }},
		{"symlinks across dirs", func(o *Options) { o.MaxFileBytes, o.MinFileBytes = LinkSymbolic, 0 }},
		{"two iterations", func(o *Options) { o.Iterations = 2 }},
		{"per-char with two copies", func(o *Options) { o.ByteIOMiB, o.Concurrency, o.FilesK = 1, 2, 0 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := smallOptions(dir)
			tc.modify(&o)
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			assertEmptyDir(t, dir)
			if len(res.Runs) != o.Iterations {
				t.Fatalf("%d runs, want %d", len(res.Runs), o.Iterations)
			}
			files := int64(o.Files() * o.Concurrency)
			for _, run := range res.Runs {
				for ti, tr := range run.Tests {
					test := result.FSTest(ti)
					wantRan := !((test == result.PutChar || test == result.GetChar) && o.ByteIOMiB == 0) &&
						!(!test.IsIO() && o.FilesK == 0)
					if tr.Ran != wantRan {
						t.Fatalf("%s ran=%v, want %v", tr.Name, tr.Ran, wantRan)
					}
					if !tr.Ran {
						continue
					}
					if tr.ElapsedNs <= 0 || tr.Latency.Count == 0 || tr.Latency.MaxNs < tr.Latency.MinNs {
						t.Fatalf("%s: elapsed %d, latency %+v", tr.Name, tr.ElapsedNs, tr.Latency)
					}
					var wantOps int64
					switch {
					case test == result.PutChar || test == result.GetChar:
						wantOps = o.ByteIOMiB << 20 * int64(o.Concurrency)
					case test == result.Seeks:
						wantOps = int64(o.Seeks * o.Concurrency)
					case test.IsIO():
						wantOps = o.chunksInFile() * int64(o.Concurrency)
					default:
						wantOps = files
					}
					if tr.Ops != wantOps {
						t.Fatalf("%s: %d ops, want %d", tr.Name, tr.Ops, wantOps)
					}
					// The rate from bonnie++'s definition, not from Ops:
					// the files (KiB for the I/O tests, seeks) the options
					// ask for over the test's seconds.
					var work float64
					switch {
					case test == result.Seeks:
						work = float64(o.Seeks * o.Concurrency)
					case test == result.PutChar || test == result.GetChar:
						work = float64(o.ByteIOMiB * 1024 * int64(o.Concurrency))
					case test.IsIO():
						work = float64(o.SizeMiB * 1024 * int64(o.Concurrency))
					default:
						work = float64(o.Files() * o.Concurrency)
					}
					if want := work / (float64(tr.ElapsedNs) / 1e9); math.Abs(tr.RatePerSec-want) > want*1e-9 {
						t.Errorf("%s: %g %s, want %g (%g over %.3f s)", tr.Name, tr.RatePerSec, tr.RateUnit, want, work, float64(tr.ElapsedNs)/1e9)
					}
				}
			}
		})
	}
}

func TestRunSizesAreWritten(t *testing.T) {
	// The stat test reads every byte the create test wrote: with sizes from
	// min to max, the bytes both tests count must agree.
	dir := t.TempDir()
	o := smallOptions(dir)
	o.SizeMiB = 0
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	for _, pair := range [][2]result.FSTest{{result.SeqCreate, result.SeqStat}, {result.RandCreate, result.RandStat}} {
		w, r := run.Tests[pair[0]].Bytes, run.Tests[pair[1]].Bytes
		if w == 0 || w != r {
			t.Fatalf("%s wrote %d bytes, %s read %d", run.Tests[pair[0]].Name, w, run.Tests[pair[1]].Name, r)
		}
	}
	if run.Tests[result.PutBlock].Ran {
		t.Fatal("-s 0 must skip the IO tests")
	}
}

func TestRunCancelledCleansUp(t *testing.T) {
	dir := t.TempDir()
	o := smallOptions(dir)
	o.SizeMiB = 64
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || !res.Interrupted {
		t.Fatalf("result not marked interrupted: %+v", res)
	}
	assertEmptyDir(t, dir)
}

func TestRunRefusesBeforeWriting(t *testing.T) {
	tests := []struct {
		name   string
		modify func(o *Options, dir string)
		usage  bool
		want   string
	}{
		{"missing dir", func(o *Options, dir string) { o.Dir = filepath.Join(dir, "nope") }, true, "-d:"},
		{"file not dir", func(o *Options, dir string) {
			p := filepath.Join(dir, "f")
			os.WriteFile(p, nil, 0o600)
			o.Dir = p
		}, true, "not a directory"},
		{"too big for the disk", func(o *Options, dir string) { o.SizeMiB = 1 << 32 }, true, "preflight: the run needs"},
		{"under twice RAM without eviction", func(o *Options, dir string) { o.RAMMiB, o.SizeMiB, o.NoEvict = 1024, 100, true }, true, "under twice the RAM"},
		{"comma in name", func(o *Options, dir string) { o.MachineName = "a,b" }, true, "-m:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := smallOptions(dir)
			tc.modify(&o, dir)
			_, err := Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) || result.IsUsage(err) != tc.usage {
				t.Fatalf("err = %v (usage %v), want one containing %q (usage %v)", err, result.IsUsage(err), tc.want, tc.usage)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), PrivateDirPrefix) {
					t.Fatalf("refused run left %s behind", e.Name())
				}
			}
		})
	}
}

func TestRunENOSPCNamesPhaseAndFile(t *testing.T) {
	// A file that grows to fill the disk is what ENOSPC looks like; a
	// read-only target directory is simpler to make anywhere.
	if os.Geteuid() == 0 {
		clydetest.Skip(t, "root ignores directory permissions; the read-only and ENOSPC cases run in the loop-device suite")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	_, err := Run(context.Background(), smallOptions(dir))
	if err == nil || !strings.Contains(err.Error(), "not writable") {
		t.Fatalf("err = %v, want a not-writable refusal", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(o *Options)
		flag   string
	}{
		{"nothing to test", func(o *Options) { o.SizeMiB, o.FilesK = 0, 0 }, "-s"},
		{"chunk not power of two", func(o *Options) { o.ChunkBytes = 3000 }, "-s"},
		{"zero seeks", func(o *Options) { o.Seeks = 0 }, "-s"},
		{"zero procs", func(o *Options) { o.SeekProcs = 0 }, "-s"},
		{"min over max", func(o *Options) { o.MinFileBytes = 5000 }, "-n"},
		{"zero dirs", func(o *Options) { o.Dirs = 0 }, "-n"},
		{"zero iterations", func(o *Options) { o.Iterations = 0 }, "-x"},
		{"zero concurrency", func(o *Options) { o.Concurrency = 0 }, "-c"},
		{"too much concurrency", func(o *Options) { o.Concurrency = 201 }, "-c"},
		{"too many seek threads", func(o *Options) { o.Concurrency, o.SeekProcs = 200, 6 }, "-c"},
		{"negative RAM", func(o *Options) { o.RAMMiB = -5 }, "-r"},
		{"file under twice RAM without eviction", func(o *Options) { o.RAMMiB, o.NoEvict = 100, true }, "-s"},
		{"too many files for RAM", func(o *Options) { o.SizeMiB = 0; o.RAMMiB = 1; o.FilesK = 1000 }, "-n"},
		{"direct with small chunk", func(o *Options) { o.Direct = true; o.ChunkBytes = 512 }, "-D"},
		{"newline in name", func(o *Options) { o.MachineName = "a\nb" }, "-m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := smallOptions(".")
			tc.modify(&o)
			err := o.Validate()
			checkSpecErr(t, err, "", tc.flag) // any message, but from the right flag
		})
	}
	o := smallOptions(".")
	if err := o.Validate(); err != nil {
		t.Fatalf("small options invalid: %v", err)
	}
}

func TestDefaultSizeMiB(t *testing.T) {
	for _, tc := range []struct{ ram, want int64 }{
		{0, 300}, {100, 300}, {1024, 2048}, {1300, 3072}, {1200, 2400}, {24 * 1024, 48 * 1024},
	} {
		if got := DefaultSizeMiB(tc.ram); got != tc.want {
			t.Errorf("DefaultSizeMiB(%d) = %d, want %d", tc.ram, got, tc.want)
		}
	}
}

// TestSmallFileReadsColdWhereEvictionRuns: the read phases start from an
// evicted page cache, so a file under twice the RAM is not refused with
// advice to grow it (the README: cold reads at any size); --no-evict brings
// bonnie++'s rule back.
func TestSmallFileReadsColdWhereEvictionRuns(t *testing.T) {
	o := smallOptions(".")
	o.RAMMiB = 48 << 10
	err := o.Validate()
	if osio.EvictSupported && err != nil {
		t.Errorf("-s %d with 48 GiB of RAM: %v; eviction makes its reads cold", o.SizeMiB, err)
	}
	if !osio.EvictSupported && err == nil {
		t.Errorf("-s %d with 48 GiB of RAM accepted where the cache cannot be dropped", o.SizeMiB)
	}
	o.NoEvict = true
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--no-evict") {
		t.Errorf("--no-evict: %v, want the 2x-RAM rule naming --no-evict", err)
	}
}

// cpuBrackets reads the process's CPU clock just before and just after each
// phase (the Phases hooks run outside its timing but around it).
type cpuBrackets struct {
	before cpuclock.Usage
	around map[result.FSTest]cpuclock.Usage
}

func (b *cpuBrackets) Before(context.Context, int, result.FSTest, func() int64) error {
	u, err := cpuclock.ProcessCPU()
	b.before = u
	return err
}

func (b *cpuBrackets) After(_ context.Context, _ int, test result.FSTest, _ *result.FSTestResult) error {
	u, err := cpuclock.ProcessCPU()
	b.around[test] = u.Sub(b.before)
	return err
}

// TestCPUIsTheProcesssOwn checks each test's CPU time against the process's
// own rusage read just before and just after that phase: the test's user
// and system times cannot exceed what the process used around it, and %CP
// is that time over the test's elapsed time, not bonnie++'s figure
// multiplied by five. The phase's work is nearly all of what the process
// does between the two reads, so a figure five times too large exceeds it.
func TestCPUIsTheProcesssOwn(t *testing.T) {
	if _, err := cpuclock.ProcessCPU(); err != nil {
		clydetest.Skipf(t, "no process CPU time here: %v", err)
	}
	o := smallOptions(t.TempDir())
	b := &cpuBrackets{around: map[result.FSTest]cpuclock.Usage{}}
	o.Phases = b
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var user, sys int64
	for _, tr := range res.Runs[0].Tests {
		if !tr.Ran || !tr.CPUKnown {
			continue
		}
		user += tr.CPUUserNs
		sys += tr.CPUSysNs
		if tr.ElapsedNs > 0 {
			want := float64(tr.CPUUserNs+tr.CPUSysNs) / float64(tr.ElapsedNs) * 100
			if math.Abs(tr.CPUPercent-want) > 1e-9 {
				t.Errorf("%s: %%CP %.3f, want (user+sys)/elapsed = %.3f", tr.Test.Name(), tr.CPUPercent, want)
			}
		}
		around, ok := b.around[tr.Test]
		if !ok {
			t.Errorf("%s: no process CPU read around it", tr.Test.Name())
			continue
		}
		if tr.CPUUserNs > int64(around.User) || tr.CPUSysNs > int64(around.Sys) {
			t.Errorf("%s reports %v user and %v system CPU; the whole process used %v and %v around it",
				tr.Test.Name(), time.Duration(tr.CPUUserNs), time.Duration(tr.CPUSysNs), around.User, around.Sys)
		}
	}
	if user == 0 || sys == 0 {
		t.Fatalf("the tests report %v user and %v system CPU; a run that makes files uses both", time.Duration(user), time.Duration(sys))
	}
}
