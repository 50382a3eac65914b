package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// Each --profile runs through its own package: the result's table carries
// the preset's name, one row per test of the preset.
func TestProfilesRunTheirPackages(t *testing.T) {
	for _, tc := range []struct {
		profile string
		args    []string
		rows    int
	}{
		{"bs-sweep", []string{"--time_based=false", "--runtime", "0"}, 11},
		{"iometer-mix", []string{"--time_based=false", "--runtime", "0"}, 6},
		{"orion", []string{"--time_based=false", "--runtime", "0", "--ioengine", "psync"}, 7},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "target")
			args := append([]string{"block", "--filename", file, "--size", "1m", "--profile", tc.profile,
				"--output-format", "json", "--no-history"}, tc.args...)
			code, out, stderr := runClyde(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var res result.Block
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			if res.Profile == nil || res.Profile.Name != tc.profile || len(res.Profile.Rows) != tc.rows {
				t.Errorf("profile %+v, want %s's %d rows", res.Profile, tc.profile, tc.rows)
			}
		})
	}
}

func TestProfileRefusals(t *testing.T) {
	file := filepath.Join(t.TempDir(), "target")
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--profile", "atto"}, `--profile: unknown profile "atto"; accepted: cdm, iometer-mix, orion, bs-sweep, sustained`},
		{[]string{"--passes", "3"}, "--passes: only goes with --profile cdm"},
		{[]string{"--profile", "bs-sweep", "--mix"}, "--mix: only goes with --profile cdm"},
		{[]string{"--profile", "cdm", "--passes", "0"}, "--passes: 0 is outside 1..9"},
		{[]string{"--profile", "sustained", "--fsync_on_close"}, "--fsync_on_close: the sustained preset runs its own jobs"},
		{[]string{"--profile", "orion", "--zonemode", "strided", "--zonesize", "64k"}, "--random_distribution: the orion preset draws its own offsets"},
	} {
		code, _, stderr := runClyde(t, append([]string{"block", "--filename", file, "--size", "1m", "--no-history"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.says) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr, tc.says)
		}
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("a refused run created its file")
	}
}
