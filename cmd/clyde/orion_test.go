package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// --profile sustained fills the preset's settings where no flag was given
// and keeps the ones that were; the steady-state flags reach the analysis.
func TestSustainedProfileFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "target")
	code, out, stderr := runClyde(t, "block", "--filename", file, "--size", "4m", "--profile", "sustained", "--runtime", "2",
		"--direct=false", "--iodepth", "4", "--steadystate", "iops:90%", "--ss_dur", "2", "--ss-round", "1s",
		"--output-format", "json", "--no-history")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res result.Block
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	c := res.Jobs[0].Config
	if c.RW != "randrw" || c.RWMixRead != 70 || c.BSBytes != 4096 || c.RuntimeNs != 2e9 || c.Direct {
		t.Errorf("config %+v: want the preset's randrw 70/30 4k with the given runtime and --direct=false", c)
	}
	if c.IODepth != 4 && c.IODepthRequested != 4 {
		t.Errorf("iodepth %d (requested %d), want the given 4", c.IODepth, c.IODepthRequested)
	}
	if len(res.Sustained) != 1 || res.Sustained[0].Fio == nil || res.Sustained[0].SNIA.RoundS != 1 {
		t.Errorf("sustained %+v: want SNIA rounds of 1 s and fio's criterion", res.Sustained)
	}
}

func TestSteadyFlagsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "target")
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--steadystate", "iops:10%"}, "--ss_dur"},
		{[]string{"--steadystate", "latency:3", "--ss_dur", "10"}, "--steadystate"},
		{[]string{"--ss_dur", "soon"}, "--ss_dur"},
		{[]string{"--until-steady", "--runtime", "0"}, "--until-steady"},
	} {
		code, _, stderr := runClyde(t, append([]string{"block", "--filename", file, "--size", "1m", "--no-history"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.flag) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, one line naming %s", tc.args, code, stderr, tc.flag)
		}
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("a refused job created its file")
	}
}

// The summary echoes the command as typed after "orion", as ORION echoes its
// arguments; -simulate takes any case, as ORION's does.
func TestOrionCommandLineEcho(t *testing.T) {
	dir := t.TempDir()
	lun := filepath.Join(dir, "lun.img")
	if err := os.WriteFile(lun, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.lun"), []byte(lun+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runClyde(t, "orion", "-duration", "1", "-num_small", "2", "-matrix", "point", "-testname", filepath.Join(dir, "t"),
		"-run", "advanced", "-simulate", "RAID0", "-output-dir", dir, "--direct=false", "--no-history")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sums, _ := filepath.Glob(filepath.Join(dir, "t_*_summary.txt"))
	if len(sums) != 1 {
		t.Fatalf("summaries %v", sums)
	}
	b, _ := os.ReadFile(sums[0])
	want := "Commandline:\n-duration 1 -num_small 2 -matrix point -testname " + filepath.Join(dir, "t") + " -run advanced -simulate RAID0 -output-dir " + dir + " --direct=false --no-history\n"
	if !strings.Contains(string(b), want) {
		t.Errorf("summary does not echo %q:\n%s", want, b)
	}
	if !strings.Contains(string(b), "Simulated Array Type: RAID0\n") {
		t.Errorf("summary does not say RAID0:\n%s", b)
	}
	if !strings.Contains(out, "Maximum Small IOPS=") {
		t.Errorf("stdout lacks the closing lines:\n%s", out)
	}
}

// A flag pasted from a write-up with a typographic dash is named with its
// dash and the flag that was meant, by every command, before anything runs.
func TestPastedDash(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"orion", "-run", "simple", "\u2013write", "10"}, "clyde: \u2013write: starts with an en dash (U+2013), not a hyphen (pasted from a document?); type -write\n"},
		{[]string{"orion", "-run", "simple", "\u2014\u2014matrix", "basic"}, "clyde: \u2014\u2014matrix: starts with an em dash (U+2014), not a hyphen (pasted from a document?); type -matrix\n"},
		{[]string{"block", "--filename", "x", "\u2212\u2212rw", "read"}, "clyde: \u2212\u2212rw: starts with a minus sign (U+2212), not a hyphen (pasted from a document?); type -rw\n"},
		{[]string{"fs", "\u2013d", "/tmp"}, "clyde: \u2013d: starts with an en dash (U+2013), not a hyphen (pasted from a document?); type -d\n"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			code, _, stderr := runClyde(t, tc.args...)
			if code != exitUsage || stderr != tc.want {
				t.Errorf("exit %d, %q; want %d, %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// Oracle's sample command for striped sequential streams takes -stripe,
// and ORION 11.2's -hugenotneeded: both are read, the stripe recorded, and
// the flag that changes nothing noted in the text and the JSON.
func TestOrionStripeAndHugeNotNeeded(t *testing.T) {
	dir := t.TempDir()
	var luns string
	for _, n := range []string{"a.img", "b.img"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, make([]byte, 4<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		luns += p + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "t.lun"), []byte(luns), 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "r.json")
	code, out, stderr := runClyde(t, "orion", "-run", "advanced", "-testname", filepath.Join(dir, "t"), "-num_disks", "1", "-simulate", "raid0",
		"-stripe", "2048", "-write", "0", "-type", "seq", "-matrix", "point", "-num_small", "0", "-num_large", "1", "-hugenotneeded",
		"-duration", "1", "-output-dir", dir, "--direct=false", "--no-history", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "note: -hugenotneeded was read and changes nothing") {
		t.Errorf("the text does not note -hugenotneeded:\n%s", out)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var res result.Block
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Orion == nil || res.Orion.StripeKiB != 2048 || !slicesContains(res.Notes, "-hugenotneeded was read") {
		t.Errorf("orion %+v, notes %q: want the 2048 KiB stripe and the note", res.Orion, res.Notes)
	}
}

func slicesContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
