package cdm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/result"
)

// cdmJob is a job for CrystalDiskMark on path (its golden files' settings:
// io_uring, a 1 GiB test), and the default options.
func cdmJob(path string) (blockbench.Job, Options) {
	j := blockbench.NewJob(path)
	j.IOEngine, j.Size = blockbench.EngineIOUring, 1<<30
	return j, DefaultOptions()
}

// quick are the settings of a real run in a test: the Real World set, one
// pass of 1 MiB, no interval.
func quick(j *blockbench.Job, o *Options) {
	o.Preset, o.Interval, o.Passes = Real, 0, 1
	j.Size, j.TimeBased, j.Runtime = 1<<20, false, 0
}

func TestCDMPlan(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(o *Options)
		labels []string // the rows, in the order they run
	}{
		{"default", func(*Options) {}, []string{"SEQ1M Q8T1 read", "SEQ1M Q1T1 read", "RND4K Q32T1 read", "RND4K Q1T1 read",
			"SEQ1M Q8T1 write", "SEQ1M Q1T1 write", "RND4K Q32T1 write", "RND4K Q1T1 write"}},
		{"nvme", func(o *Options) { o.Preset = NVMe }, []string{"SEQ1M Q8T1 read", "SEQ128K Q32T1 read", "RND4K Q32T16 read",
			"RND4K Q1T1 read", "SEQ1M Q8T1 write", "SEQ128K Q32T1 write", "RND4K Q32T16 write", "RND4K Q1T1 write"}},
		{"peak with mix", func(o *Options) { o.Preset, o.Mix = Peak, true }, []string{"SEQ1M Q8T1 read", "RND4K Q32T1 read",
			"SEQ1M Q8T1 write", "RND4K Q32T1 write", "SEQ1M Q8T1 mix", "RND4K Q32T1 mix"}},
		{"real", func(o *Options) { o.Preset = Real }, []string{"SEQ1M Q1T1 read", "RND4K Q1T1 read", "SEQ1M Q1T1 write", "RND4K Q1T1 write"}},
		{"demo both", func(o *Options) { o.Preset, o.Data = Demo, Both }, []string{"SEQ1M Q8T1 read (random)",
			"SEQ1M Q8T1 read (0Fill)", "SEQ1M Q8T1 write (random)", "SEQ1M Q8T1 write (0Fill)"}},
		{"cdm6", func(o *Options) { o.Preset = CDM6 }, []string{"SEQ128K Q32T1 read", "RND4K Q8T8 read", "RND4K Q32T1 read",
			"RND4K Q1T1 read", "SEQ128K Q32T1 write", "RND4K Q8T8 write", "RND4K Q32T1 write", "RND4K Q1T1 write"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j, o := cdmJob(filepath.Join(t.TempDir(), "new.tmp"))
			o.Passes = 3
			tc.edit(&o)
			pl, err := Plan(j, o)
			if err != nil {
				t.Fatal(err)
			}
			p := pl.Plan
			var got []string
			for i, l := range p.Labels {
				if i == 0 || p.Labels[i-1].Row != l.Row {
					got = append(got, l.Row)
				}
			}
			if !slices.Equal(got, tc.labels) {
				t.Errorf("rows %q\nwant %q", got, tc.labels)
			}
			if len(p.Groups) != len(tc.labels)*(o.Passes+1) || len(pl.rows) != len(tc.labels) {
				t.Fatalf("%d groups, %d rows for %d rows of %d passes and a warm-up", len(p.Groups), len(pl.rows), len(tc.labels), o.Passes)
			}
			for i, g := range p.Groups {
				w := g[0]
				first := p.Labels[i].Pass == 0
				wantIdle := o.Interval
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
		edit func(j *blockbench.Job, o *Options)
		flag string
	}{
		{"psync cannot keep Q8", func(j *blockbench.Job, _ *Options) { j.IOEngine = blockbench.EnginePsync }, "--ioengine"},
		{"ten passes", func(_ *blockbench.Job, o *Options) { o.Passes = 10 }, "--passes"},
		{"no passes", func(_ *blockbench.Job, o *Options) { o.Passes = 0 }, "--passes"},
		{"mix of 95", func(_ *blockbench.Job, o *Options) { o.Mix, o.MixRead = true, 95 }, "--mix-read"},
		{"ramp time", func(j *blockbench.Job, _ *Options) { j.RampTime = time.Second }, "--ramp_time"},
		{"both on an existing file", func(j *blockbench.Job, o *Options) { j.Filename, o.Data = existing, Both }, "--test-data"},
		{"fill beyond the disk", func(_ *blockbench.Job, o *Options) {
			o.Fill = blockbench.FillLevel{Bytes: 1 << 62, Request: "4e"}
		}, "--fill"},
		{"unknown preset", func(_ *blockbench.Job, o *Options) { o.Preset = "cdm4" }, "--cdm-preset"},
		{"a single job's distribution", func(j *blockbench.Job, _ *Options) {
			j.Distribution = blockbench.Distribution{Kind: blockbench.DistZipf, Param: 1.2}
		}, "--random_distribution"},
		{"a single job's verify", func(j *blockbench.Job, _ *Options) { j.Verify = blockbench.VerifyCRC32C }, "--verify"},
		{"a field of the job", func(j *blockbench.Job, _ *Options) { j.NumJobs = 0 }, "--numjobs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j, o := cdmJob(filepath.Join(dir, "new.tmp"))
			tc.edit(&j, &o)
			res, err := Run(context.Background(), j, o)
			var ue *result.UsageError
			if res != nil || !errors.As(err, &ue) || ue.Flag != tc.flag {
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
	j, o := cdmJob(dir)
	quick(&j, &o)
	_, err = Run(context.Background(), j, o)
	var ue *result.UsageError
	if !errors.As(err, &ue) || ue.Flag != "--buffered" || !strings.Contains(ue.Msg, "tmpfs") {
		t.Fatalf("err = %v, want a refusal naming tmpfs and --buffered", err)
	}
	o.Buffered = true
	res, err := Run(context.Background(), j, o)
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
	j, o := cdmJob(dir)
	o.Preset, o.Data, o.Interval, o.Passes, j.Size = Demo, Both, 0, 1, 2<<20
	j.TimeBased, j.Runtime, j.IOEngine = false, 0, blockbench.EngineAuto
	res, err := Run(context.Background(), j, o)
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
	j, o := cdmJob("/mnt/x")
	o.Passes = 3
	rows := []row{{test: rnd4kQ1, mode: "read", data: Random, warmup: 0, passes: []int{1, 2, 3}}}
	pass := func(bw int64, latNs float64) result.BlockJob {
		return result.BlockJob{Read: result.BlockDir{BWBytes: bw, Lat: result.LatNs{N: 10, Mean: latNs}}}
	}
	jobs := []result.BlockJob{pass(900, 1000), pass(400, 3000), pass(800, 2000), pass(600, 1500)}
	for _, tc := range []struct {
		agg       Aggregate
		bw, latUs float64
	}{{Best, 800, 1.5}, {Average, 600, 6.5 / 3}} {
		o.Aggregate = tc.agg
		pl := &Planned{job: j, opts: o, rows: rows}
		c, _ := pl.finish(jobs)
		r := c.Rows[0]
		if r.BWBytes != tc.bw || r.LatencyUs != tc.latUs || r.IOPS != tc.bw/4096 || !slices.Equal(r.Jobs, []int{1, 2, 3}) {
			t.Errorf("%s: %+v, want %.0f B/s and %.3f us from the passes, not the warm-up", tc.agg, r, tc.bw, tc.latUs)
		}
	}
}

// TestCDMFailedRunRecordsError stops a real run before it measures (its
// context is cancelled before the first group) and checks the result
// carries the error and no rows of zeros.
func TestCDMFailedRunRecordsError(t *testing.T) {
	dir := t.TempDir()
	j, o := cdmJob(dir)
	quick(&j, &o)
	o.Preset, j.IOEngine = Demo, blockbench.EngineAuto
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stopped before the first group
	res, err := Run(ctx, j, o)
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

// A CrystalDiskMark run, for real on a small file with short passes, fills
// every row of its table.
func TestCDMProducesTable(t *testing.T) {
	j, o := cdmJob(filepath.Join(t.TempDir(), "f"))
	j.IOEngine, j.Size, o.Passes, o.Interval = blockbench.EngineAuto, 4<<20, 1, 0
	// A fixed amount of I/O per row, not a time window: a loaded machine
	// must not leave a row empty.
	j.TimeBased, j.Runtime = false, 0
	res, err := Run(context.Background(), j, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Profile == nil || res.Profile.Name != Name || len(res.Profile.Rows) != 8 {
		t.Fatalf("profile %+v, want 8 rows", res.Profile)
	}
	for _, r := range res.Profile.Rows {
		if r.IOPS <= 0 || r.BWBytes <= 0 || r.MeanLatNs <= 0 || len(r.Jobs) == 0 {
			t.Errorf("row %q is empty: %+v", r.Label, r)
		}
	}
	if len(res.Jobs) != 8*2 {
		t.Errorf("cdm ran %d jobs, want 8 rows x (1 warm-up + 1 pass)", len(res.Jobs))
	}
}
