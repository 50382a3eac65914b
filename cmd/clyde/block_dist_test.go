package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBlockDistributionFlags: --random_distribution and the zone flags
// reach the job, plain or over a job file, and the result echoes them.
func TestBlockDistributionFlags(t *testing.T) {
	dir := t.TempDir()
	job := writeJobFile(t, "[z]\nfilename="+filepath.Join(dir, "g")+"\nsize=4m\nrw=randread\n")
	for _, c := range []struct {
		name string
		args []string
		want map[string]string
	}{
		{"plain", []string{"--filename", filepath.Join(dir, "f"), "--size", "4m", "--rw", "randread", "--random_distribution", "zipf:1.2"},
			map[string]string{"random_distribution": "zipf:1.2"}},
		{"zones", []string{"--filename", filepath.Join(dir, "f"), "--size", "4m", "--rw", "read", "--zonemode", "strided", "--zonesize", "64k", "--zoneskip", "64k"},
			map[string]string{"zonemode": "strided", "zonesize": "64k", "zonerange": "64k", "zoneskip": "64k"}},
		{"over a job file", []string{job, "--random_distribution", "normal:10"},
			map[string]string{"random_distribution": "normal:10"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"block"}, c.args...)
			code, out, stderr := runClyde(t, append(args, "--runtime", "50ms", "--output-format", "json", "--no-history")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			res := decodeBlock(t, out)
			o := res.Jobs[0].Options
			if c.args[0] == job {
				o = res.GlobalOptions // fio echoes its command line's options there
			}
			for k, v := range c.want {
				if o.Get(k) != v {
					t.Errorf("options %v, want %s=%s", o, k, v)
				}
			}
		})
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"theta 1", []string{"--random_distribution", "zipf:1"}, "theta"},
		{"zonesize without zonemode", []string{"--zonesize", "1m"}, "without --zonemode strided"},
		{"zbd", []string{"--zonemode", "zbd"}, "zoned block devices"},
		{"a preset", []string{"--profile", "bs-sweep", "--random_distribution", "zipf"}, "preset draws its own"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"block", "--filename", filepath.Join(dir, "f"), "--size", "4m", "--rw", "randread"}, c.args...)
			code, _, stderr := runClyde(t, append(args, "--runtime", "50ms", "--no-history")...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
		})
	}
}
