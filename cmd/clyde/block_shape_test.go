package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/result"
)

// TestEveryBlockCommandShapesAsFio: blockbench leaves fio's own fields to
// the shape the CLI gives it (fiojob.Shape). Every command that runs block
// jobs must give it, or its JSON silently loses what fio's tools read:
// the depth and latency distributions, the 500 ms samples, bw_agg and the
// job options.
func TestEveryBlockCommandShapesAsFio(t *testing.T) {
	dir := t.TempDir()
	jobFile := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(jobFile, []byte("[global]\nsize=1m\nruntime=300ms\ntime_based\n[r]\nrw=randread\nfilename="+filepath.Join(dir, "jf")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lun := filepath.Join(dir, "lun")
	if err := os.WriteFile(lun, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.lun"), []byte(lun+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := []struct {
		name string
		args []string
		json string // the file the result goes to; "" for stdout
	}{
		{"block flags", []string{"block", "--filename", filepath.Join(dir, "f"), "--rw", "randread", "--size", "1m", "--runtime", "300ms",
			"--output-format", "json", "--no-history"}, ""},
		{"block job file", []string{"block", jobFile, "--output-format", "json", "--no-history"}, ""},
		{"cdm", []string{"block", "--filename", dir, "--profile", "cdm", "--cdm-preset", "demo", "--buffered", "--size", "4m",
			"--runtime", "300ms", "--interval", "0", "--passes", "1", "--output-format", "json", "--no-history"}, ""},
		{"iometer", []string{"iometer", "../../docs/iometer/4k-random-write-mixes.icf", "--filename", filepath.Join(dir, "iobw.tst"),
			"--size", "4m", "--runtime", "300ms", "--ramp_time", "0", "--buffered", "--output-format", "json", "--no-history"}, ""},
		{"orion", []string{"orion", "-run", "advanced", "-matrix", "point", "-num_small", "1", "-num_large", "0", "-duration", "1",
			"-testname", filepath.Join(dir, "t"), "-output-dir", dir, "--direct=false", "--json", filepath.Join(dir, "orion.json"),
			"--no-history"}, filepath.Join(dir, "orion.json")},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			code, stdout, stderr := runClyde(t, r.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			raw := []byte(stdout)
			if r.json != "" {
				var err error
				if raw, err = os.ReadFile(r.json); err != nil {
					t.Fatal(err)
				}
			}
			var res result.Block
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatalf("%v: %.300s", err, raw)
			}
			if len(res.Jobs) == 0 {
				t.Fatal("no jobs")
			}
			for _, j := range res.Jobs {
				d := j.Read
				if d.TotalIOs == 0 {
					d = j.Write
				}
				if len(j.IODepthLevel) != 7 || len(j.LatencyUs) != 10 || len(j.Options) == 0 || j.Options.Get("rw") != j.Config.RW ||
					d.IOPSSamples == 0 || d.BWAgg == 0 {
					t.Errorf("job %s lacks fio's fields: iodepth_level %v, latency_us %v, options %v, iops samples %d, bw_agg %v",
						j.JobName, j.IODepthLevel, j.LatencyUs, j.Options, d.IOPSSamples, d.BWAgg)
				}
			}
		})
	}
}
