package fsbench

import (
	"context"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// wallJob is a one-rank stand-in for a job whose other rank reached every
// create phase's stonewall before this one started, and had made extra
// files by then.
type wallJob struct {
	extra int64
	got   []StonewallCounts
}

func (wallJob) Before(context.Context, int, result.FSTest, func() int64) error        { return nil }
func (wallJob) After(context.Context, int, result.FSTest, *result.FSTestResult) error { return nil }

func (wallJob) Wall(int, result.FSTest) <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

func (j *wallJob) AgreeStonewall(_ context.Context, _ int, _ result.FSTest, mine StonewallCounts) (StonewallCounts, error) {
	j.got = append(j.got, mine)
	other := StonewallCounts{Items: j.extra, Min: j.extra, Max: j.extra, ElapsedNs: 1}
	return mine.Combine(other), nil
}

func TestStonewall(t *testing.T) {
	t.Run("another rank stopped first", func(t *testing.T) {
		// Every copy stops at once, with no file made; the other rank had
		// 10, so each copy makes 10 and every later phase sees 10 each.
		dir := t.TempDir()
		o := smallOptions(dir)
		o.SizeMiB, o.Concurrency, o.Stonewall = 0, 2, time.Hour
		o.MaxFileBytes, o.MinFileBytes = 0, 0
		job := &wallJob{extra: 10}
		o.Phases = job
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(job.got) != 2 || job.got[0].Items != 0 || job.got[0].Max != 0 {
			t.Fatalf("this rank reported %+v", job.got)
		}
		tests := res.Runs[0].Tests
		for _, c := range []result.FSTest{result.SeqCreate, result.RandCreate} {
			sw := tests[c].Stonewall
			if sw == nil || sw.MaxItems != 10 || sw.MinItems != 0 || sw.Items != 10 || sw.Wall != "time" {
				t.Fatalf("%s stonewall %+v", c.Name(), sw)
			}
		}
		for _, tt := range []result.FSTest{result.SeqCreate, result.SeqStat, result.SeqDelete, result.RandCreate, result.RandStat, result.RandDelete} {
			if tests[tt].Ops != 20 {
				t.Errorf("%s: %d files, want 10 for each of 2 copies", tt.Name(), tests[tt].Ops)
			}
		}
		if tests[result.SeqStat].Stonewall != nil {
			t.Error("a stat phase has a stonewall")
		}
		assertEmptyDir(t, dir)
	})
	t.Run("a copy made all its files first", func(t *testing.T) {
		dir := t.TempDir()
		o := smallOptions(dir)
		o.SizeMiB, o.Concurrency, o.Stonewall = 0, 2, time.Hour
		o.MaxFileBytes, o.MinFileBytes = 0, 0
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		sw := res.Runs[0].Tests[result.SeqCreate].Stonewall
		if sw == nil || sw.Wall != "first done" || sw.MaxItems != 1024 || sw.Items < 1024 || sw.Items > 2048 || sw.RatePerSec <= 0 {
			t.Fatalf("stonewall %+v", sw)
		}
		if ops := res.Runs[0].Tests[result.RandDelete].Ops; ops != 2048 {
			t.Fatalf("random delete: %d files, want 2048", ops)
		}
		assertEmptyDir(t, dir)
	})
}
