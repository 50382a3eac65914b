package blockbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/result"
)

func cdmJob(path string) Job {
	j := NewJob(path)
	j.Profile, j.IOEngine, j.Size = ProfileCDM, EngineIOUring, 1<<30
	return j
}

// goldenCDM runs a CrystalDiskMark plan on synthetic workers: throughput
// grows with block size, queues and threads until it saturates, and zeros
// go a tenth faster than random data, also when saturated.
func goldenCDM(j Job) result.Block {
	p, rows, err := cdmPlan(&j)
	if err != nil {
		panic(err)
	}
	b := fixtureBlock()
	b.Jobs = syntheticPlanJobs(p, 2, func(w *workload) (int64, float64) {
		load := float64(w.depth * w.NumJobs)
		perIO := 20_000 + float64(w.BS)/2
		if w.Buffer.Kind == BufferZero {
			perIO *= 0.9
		}
		iops := min(load*1e9/perIO, 3e9/float64(w.BS)) / float64(w.NumJobs) / 20
		if w.Buffer.Kind == BufferZero {
			iops *= 1.1
		}
		return int64(iops), perIO * min(load, 4)
	})
	b.CDM, b.Profile = cdmFinish(&j, rows, b.Jobs)
	b.CDM.Admin = true
	b.Space = &result.BlockSpace{Path: "/mnt/ssd", MountPoint: "/mnt/ssd", TotalBytes: 350 << 30, UsedBytes: 42 << 30, AvailBytes: 308 << 30}
	b.Provenance.Kernel = "Linux 6.18.0"
	return b
}

func TestCDMGoldens(t *testing.T) {
	def := cdmJob("/mnt/ssd/clyde-cdm.tmp")
	def.Passes = 2
	both := def
	both.CDM.Data, both.CDM.Mix, both.CDM.Aggregate, both.CDM.Preset, both.Passes = CDMBoth, true, CDMAverage, CDMPeakNVMe, 1
	buffered := cdmJob("/mnt/ssd/clyde-cdm.tmp")
	buffered.CDM.Preset, buffered.CDM.Buffered, buffered.Passes, buffered.Size = CDMReal, true, 3, 256<<20
	cases := map[string]Job{"profile-cdm.json": def, "cdm-both-mix.json": both, "cdm-real-buffered.json": buffered}
	for name, j := range cases {
		t.Run(name, func(t *testing.T) {
			b := goldenCDM(j)
			checkGolden(t, name, b)
			for _, r := range b.CDM.Rows {
				if len(r.Jobs) != j.Passes || r.BWBytes <= 0 || r.LatencyUs <= 0 || r.IOPS*float64(r.BSBytes) != r.BWBytes {
					t.Errorf("row %s %s %s: %+v", r.Test, r.Mode, r.Data, r)
				}
			}
		})
	}
}

func TestCDMPlan(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(j *Job)
		labels []string // the rows, in the order they run
	}{
		{"default", func(*Job) {}, []string{"SEQ1M Q8T1 read", "SEQ1M Q1T1 read", "RND4K Q32T1 read", "RND4K Q1T1 read",
			"SEQ1M Q8T1 write", "SEQ1M Q1T1 write", "RND4K Q32T1 write", "RND4K Q1T1 write"}},
		{"nvme", func(j *Job) { j.CDM.Preset = CDMNVMe }, []string{"SEQ1M Q8T1 read", "SEQ128K Q32T1 read", "RND4K Q32T16 read",
			"RND4K Q1T1 read", "SEQ1M Q8T1 write", "SEQ128K Q32T1 write", "RND4K Q32T16 write", "RND4K Q1T1 write"}},
		{"peak with mix", func(j *Job) { j.CDM.Preset, j.CDM.Mix = CDMPeak, true }, []string{"SEQ1M Q8T1 read", "RND4K Q32T1 read",
			"SEQ1M Q8T1 write", "RND4K Q32T1 write", "SEQ1M Q8T1 mix", "RND4K Q32T1 mix"}},
		{"real", func(j *Job) { j.CDM.Preset = CDMReal }, []string{"SEQ1M Q1T1 read", "RND4K Q1T1 read", "SEQ1M Q1T1 write", "RND4K Q1T1 write"}},
		{"demo both", func(j *Job) { j.CDM.Preset, j.CDM.Data = CDMDemo, CDMBoth }, []string{"SEQ1M Q8T1 read (random)",
			"SEQ1M Q8T1 read (0Fill)", "SEQ1M Q8T1 write (random)", "SEQ1M Q8T1 write (0Fill)"}},
		{"cdm6", func(j *Job) { j.CDM.Preset = CDM6 }, []string{"SEQ128K Q32T1 read", "RND4K Q8T8 read", "RND4K Q32T1 read",
			"RND4K Q1T1 read", "SEQ128K Q32T1 write", "RND4K Q8T8 write", "RND4K Q32T1 write", "RND4K Q1T1 write"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := cdmJob(filepath.Join(t.TempDir(), "new.tmp"))
			j.Passes = 3
			tc.edit(&j)
			p, rows, err := cdmPlan(&j)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, l := range p.Labels {
				if i == 0 || p.Labels[i-1].Row != l.Row {
					got = append(got, l.Row)
				}
			}
			if !slices.Equal(got, tc.labels) {
				t.Errorf("rows %q\nwant %q", got, tc.labels)
			}
			if len(p.Groups) != len(tc.labels)*(j.Passes+1) || len(rows) != len(tc.labels) {
				t.Fatalf("%d groups, %d rows for %d rows of %d passes and a warm-up", len(p.Groups), len(rows), len(tc.labels), j.Passes)
			}
			for i, g := range p.Groups {
				w := g[0]
				first := p.Labels[i].Pass == 0
				wantIdle := j.CDM.Interval
				if !first || i == 0 {
					wantIdle = 0
				}
				if p.Idle[i] != wantIdle || !w.Direct || w.Runtime != 5*time.Second || !w.TimeBased || w.Size != 1<<30 {
					t.Errorf("group %d (%s): idle %v direct %v runtime %v size %d", i, w.Name, p.Idle[i], w.Direct, w.Runtime, w.Size)
				}
				if strings.Contains(p.Labels[i].Row, "mix") && (w.RWMixRead != 70 || !w.RW.Mixed()) {
					t.Errorf("mix row %s: rw %s rwmixread %d", w.Name, w.RW, w.RWMixRead)
				}
			}
			if !p.PrivateDir || !p.RequireUncached {
				t.Errorf("private %v, uncached %v: a new path is made in a private directory, unbuffered", p.PrivateDir, p.RequireUncached)
			}
		})
	}
}

func TestCDMRefusals(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		edit func(j *Job)
		flag string
	}{
		{"psync cannot keep Q8", func(j *Job) { j.IOEngine = EnginePsync }, "--ioengine"},
		{"ten passes", func(j *Job) { j.Passes = 10 }, "--passes"},
		{"mix of 95", func(j *Job) { j.CDM.Mix, j.CDM.MixRead = true, 95 }, "--mix-read"},
		{"ramp time", func(j *Job) { j.RampTime = time.Second }, "--ramp_time"},
		{"both on an existing file", func(j *Job) { j.Filename, j.CDM.Data = existing, CDMBoth }, "--test-data"},
		{"fill beyond the disk", func(j *Job) { j.CDM.Fill = FillLevel{Bytes: 1 << 62, Request: "4e"} }, "--fill"},
		{"unknown preset", func(j *Job) { j.CDM.Preset = "cdm4" }, "--cdm-preset"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := cdmJob(filepath.Join(dir, "new.tmp"))
			tc.edit(&j)
			res, err := Run(context.Background(), j)
			var ue *result.UsageError
			if res != nil || !asUsage(err, &ue) || ue.Flag != tc.flag {
				t.Fatalf("err = %v, want a usage error for %s", err, tc.flag)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("the refused run left %v", entries)
			}
		})
	}
}

// On tmpfs an unbuffered CrystalDiskMark run would measure memory: refused
// without --buffered, and with it every job says direct 0.
func TestCDMOnTmpfs(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "clyde-cdm-test-")
	if err != nil {
		clydetest.Skipf(t, "no /dev/shm here: %v", err)
	}
	defer os.RemoveAll(dir)
	if what, _ := pagecache.CachedOnly(dir); what == "" {
		clydetest.Skipf(t, "%s is not a memory filesystem here", dir)
	}
	j := cdmJob(dir)
	j.CDM.Preset, j.CDM.Interval, j.Passes, j.Size, j.TimeBased, j.Runtime = CDMReal, 0, 1, 1<<20, false, 0
	_, err = Run(context.Background(), j)
	var ue *result.UsageError
	if !asUsage(err, &ue) || ue.Flag != "--buffered" || !strings.Contains(ue.Msg, "tmpfs") {
		t.Fatalf("err = %v, want a refusal naming tmpfs and --buffered", err)
	}
	j.CDM.Buffered = true
	res, err := Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	for _, job := range res.Jobs {
		if job.Config.Direct {
			t.Errorf("job %s ran with direct I/O", job.JobName)
		}
	}
	if res.CDM.Direct || !slices.ContainsFunc(res.Notes, func(s string) bool { return strings.Contains(s, "--buffered") }) {
		t.Errorf("the result does not say the cache was used: direct %v, notes %q", res.CDM.Direct, res.Notes)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// Test data both: every row runs twice, once on a random-filled file with
// random writes, once on a zero-filled one with zero writes, in the
// private directory, which goes at the end.
func TestCDMBothRunsTwoBuffers(t *testing.T) {
	dir := t.TempDir()
	j := cdmJob(dir)
	j.CDM.Preset, j.CDM.Data, j.CDM.Interval, j.Passes, j.Size = CDMDemo, CDMBoth, 0, 1, 2<<20
	j.TimeBased, j.Runtime, j.IOEngine = false, 0, EngineAuto
	res, err := Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.CDM.Rows) != 4 {
		t.Fatalf("%d rows, want read and write, each random and zero", len(res.CDM.Rows))
	}
	files := map[string]string{}
	for _, r := range res.CDM.Rows {
		for _, k := range append([]int{r.WarmupJob}, r.Jobs...) {
			job := res.Jobs[k]
			want := map[string]string{"random": "random", "zero": "zero"}[r.Data]
			if job.Config.Buffer != want || !job.Config.Direct {
				t.Errorf("row %s %s: job %s buffer %s direct %v", r.Mode, r.Data, job.JobName, job.Config.Buffer, job.Config.Direct)
			}
		}
		files[r.Data] = res.Jobs[r.Jobs[0]].JobName
	}
	if len(files) != 2 {
		t.Errorf("rows ran with %v", files)
	}
	if !strings.Contains(res.Target.ResolvedPath, string(os.PathSeparator)+"clyde.") {
		t.Errorf("target %s is not in a private directory", res.Target.ResolvedPath)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestCDMKeepsBestOrAverage(t *testing.T) {
	j := cdmJob("/mnt/x")
	j.Passes = 3
	rows := []cdmRow{{test: rnd4kQ1, mode: "read", data: CDMRandom, warmup: 0, passes: []int{1, 2, 3}}}
	pass := func(bw int64, latNs float64) result.BlockJob {
		return result.BlockJob{Read: result.BlockDir{BWBytes: bw, Lat: result.LatNs{N: 10, Mean: latNs}}}
	}
	jobs := []result.BlockJob{pass(900, 1000), pass(400, 3000), pass(800, 2000), pass(600, 1500)}
	for _, tc := range []struct {
		agg       CDMAggregate
		bw, latUs float64
	}{{CDMBest, 800, 1.5}, {CDMAverage, 600, 6.5 / 3}} {
		j.CDM.Aggregate = tc.agg
		c, _ := cdmFinish(&j, rows, jobs)
		r := c.Rows[0]
		if r.BWBytes != tc.bw || r.LatencyUs != tc.latUs || r.IOPS != tc.bw/4096 || !slices.Equal(r.Jobs, []int{1, 2, 3}) {
			t.Errorf("%s: %+v, want %.0f B/s and %.3f us from the passes, not the warm-up", tc.agg, r, tc.bw, tc.latUs)
		}
	}
}

func asUsage(err error, ue **result.UsageError) bool { return errors.As(err, ue) }

// TestCDMPartialRun is a run stopped after five of the Default preset's
// jobs (the first row's warm-up and two passes, the second's warm-up and
// one pass) and one stopped before any: only rows a pass of which ran are
// kept, with their jobs, and the error goes with them (the golden files
// feed blockreport's text for partial runs).
func TestCDMPartialRun(t *testing.T) {
	j := cdmJob("/mnt/ssd/clyde-cdm.tmp")
	j.Passes = 2
	for _, tc := range []struct {
		name   string
		jobs   int
		err    string
		intr   bool
		tests  []string
		passes []int
	}{
		{"cdm-partial.json", 5, "job SEQ1M Q1T1 pass 2: read /mnt/ssd/clyde-cdm.tmp: input/output error", false, []string{"SEQ1M Q8T1", "SEQ1M Q1T1"}, []int{2, 1}},
		{"cdm-interrupted-early.json", 0, "before group 1 of 24: interrupt", true, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := goldenCDM(j)
			b.Jobs = b.Jobs[:tc.jobs]
			b.CDM, b.Profile = cdmFinish(&j, mustCDMRows(t, j), b.Jobs)
			b.CDM.Admin, b.Error, b.Interrupted = true, tc.err, tc.intr
			checkGolden(t, tc.name, b)
			if len(b.CDM.Rows) != len(tc.tests) || len(b.Profile.Rows) != len(tc.tests) {
				t.Fatalf("%d CDM rows and %d profile rows, want %d: %+v", len(b.CDM.Rows), len(b.Profile.Rows), len(tc.tests), b.CDM.Rows)
			}
			for i, r := range b.CDM.Rows {
				if r.Test != tc.tests[i] || len(r.Jobs) != tc.passes[i] || r.BWBytes <= 0 {
					t.Errorf("row %d: %s with jobs %v at %.0f B/s, want %s with %d passes", i, r.Test, r.Jobs, r.BWBytes, tc.tests[i], tc.passes[i])
				}
			}
		})
	}
}

func mustCDMRows(t *testing.T, j Job) []cdmRow {
	t.Helper()
	_, rows, err := cdmPlan(&j)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestCDMFailedRunRecordsError stops a real run before it measures (its
// context is cancelled before the first group) and checks the result
// carries the error and no rows of zeros.
func TestCDMFailedRunRecordsError(t *testing.T) {
	dir := t.TempDir()
	j := cdmJob(dir)
	j.CDM.Preset, j.CDM.Interval, j.Passes, j.Size, j.TimeBased, j.Runtime, j.IOEngine = CDMDemo, 0, 1, 1<<20, false, 0, EngineAuto
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stopped before the first group
	res, err := Run(ctx, j)
	if err == nil {
		t.Fatal("a cancelled run succeeded")
	}
	if res == nil {
		t.Fatalf("no result for a run stopped before measuring: %v", err)
	}
	if res.Error == "" || len(res.CDM.Rows) != 0 || len(res.Profile.Rows) != 0 {
		t.Errorf("error %q, %d rows, %d profile rows: want the error and no rows", res.Error, len(res.CDM.Rows), len(res.Profile.Rows))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
