package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// distValue is bucket key's share in d.
func distValue(d result.Dist, key string) float64 {
	for _, b := range d {
		if b.Key == key {
			return b.Value
		}
	}
	return -1
}

// TestBlockBatchFlags checks fio's batching flags on clyde block's command
// line, for a single job and as overrides after a job file: with
// --iodepth_batch_submit 8 --iodepth_batch_complete_min 4 at iodepth 16
// over 512 blocks, fio 3.33's loop submits 2 batches of 8 and 124 of 4 and
// reaps 125 times 4 and the last 12 in one (fio's iodepth_submit 8: 1.59%,
// iodepth_complete 16: 0.79%), whatever the device's timing.
func TestBlockBatchFlags(t *testing.T) {
	batch := []string{"--iodepth_batch_submit", "8", "--iodepth_batch_complete", "4"}
	cases := []struct {
		name    string
		jobFile string
		args    []string
	}{
		{name: "single job", args: append([]string{"--rw", "randread", "--bs", "4k", "--size", "2m", "--time_based=false", "--iodepth", "16", "--ioengine", "io_uring"}, batch...)},
		{name: "overrides after a job file", jobFile: "[r]\nrw=randread\nsize=2m\niodepth=16\nioengine=libaio\niodepth_batch_submit=2\n", args: batch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "f")
			args := []string{"block"}
			if c.jobFile != "" {
				args = append(args, writeJobFile(t, "[global]\nfilename="+target+"\n"+c.jobFile))
			} else {
				args = append(args, "--filename", target)
			}
			code, out, stderr := runClyde(t, append(append(args, c.args...), "--output-format", "json", "--no-history")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			res := decodeBlock(t, out)
			if len(res.Jobs) != 1 {
				t.Fatalf("%d jobs, want 1", len(res.Jobs))
			}
			j := res.Jobs[0]
			if j.Read.TotalIOs != 512 {
				t.Fatalf("%d reads, want 512", j.Read.TotalIOs)
			}
			sub, comp := j.IODepthSubmit, j.IODepthComplete
			if s8, s4, c4, c16 := distValue(sub, "8"), distValue(sub, "4"), distValue(comp, "4"), distValue(comp, "16"); !near(s8, 200.0/126) || !near(s4, 12400.0/126) || !near(c4, 12500.0/126) || !near(c16, 100.0/126) {
				t.Errorf("iodepth_submit %v, iodepth_complete %v; want fio's 8: 1.59%%, 4: 98.41%% and 4: 99.21%%, 16: 0.79%%", sub, comp)
			}
			// The job options say what ran; the flags after a job file
			// are fio's command-line options, which it echoes in its
			// global options, by fio's names.
			o := j.Options
			if c.jobFile != "" {
				o = res.GlobalOptions
			}
			if o.Get("iodepth_batch")+o.Get("iodepth_batch_submit") != "8" || o.Get("iodepth_batch_complete_min") != "4" {
				t.Errorf("options %v: want iodepth_batch(_submit) 8 and iodepth_batch_complete_min 4", o)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 0.01 && b-a < 0.01 }

// TestBlockBatchFlagRefusals checks that a batching flag is refused where
// clyde does not batch, and out of range.
func TestBlockBatchFlagRefusals(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"psync", []string{"--filename", filepath.Join(dir, "f"), "--ioengine", "psync", "--iodepth", "8", "--iodepth_batch_submit", "4"}, "engine psync does not submit or reap in batches"},
		{"negative", []string{"--filename", filepath.Join(dir, "f"), "--ioengine", "io_uring", "--iodepth_low", "-1"}, "--iodepth_low: -1 is outside"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runClyde(t, append([]string{"block"}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
		})
	}
}
