package compare

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const copyDir = "../../testdata/copy/"

func loadCopy(t *testing.T, names ...string) []*Run {
	t.Helper()
	var runs []*Run
	for _, n := range names {
		rs, err := Load(copyDir+n+".json", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 || rs[0].Kind() != "copy" {
			t.Fatalf("%s: %d runs of kind %v, want one copy run", n, len(rs), rs)
		}
		runs = append(runs, rs...)
	}
	return runs
}

// TestCompareCopyGolden puts copy runs side by side in the write-ups'
// shape: btrfs (whose copy_file_range and clone share extents, so they go
// apart as times) against tmpfs (warm sources, marked) and ext4 to btrfs.
func TestCompareCopyGolden(t *testing.T) {
	tb, err := Compare(loadCopy(t, "btrfs-all", "tmpfs-warm", "ext4-to-btrfs"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tb.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	golden := copyDir + "compare.txt"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("output differs from %s (run with -update if meant):\n%s", golden, buf.String())
	}
	rates, _, _ := strings.Cut(buf.String(), "no data copied")
	if strings.Contains(rates, "/mnt/btrfs  clone") || strings.Contains(rates, "/mnt/btrfs  copy_file_range") {
		t.Errorf("a btrfs clone is among the rates:\n%s", rates)
	}
}

func TestCopyRunsForHistory(t *testing.T) {
	runs := loadCopy(t, "run", "interrupted", "btrfs-all")
	a, b, c := runs[0], runs[1], runs[2]
	if a.Params() != b.Params() {
		t.Errorf("the same options give different parameters:\n%s\n%s", a.Params(), b.Params())
	}
	if a.Params() == c.Params() {
		t.Errorf("different sets and methods give the same parameters %s", a.Params())
	}
	if got := a.Summary(); got != "readwrite 64Kx2 570 MB/s, 4Kx3 47.4 MB/s" {
		t.Errorf("Summary = %q", got)
	}
	if a.Target() != "/mnt/ssd" || a.Host() != "bench" {
		t.Errorf("target %q, host %q", a.Target(), a.Host())
	}
	for _, f := range c.Figures() {
		if (strings.HasPrefix(f.Key, "clone") || strings.HasPrefix(f.Key, "copy_file_range")) && f.HigherIsBetter {
			t.Errorf("%s on btrfs is a rate; a clone has only its time", f.Key)
		}
	}
	for _, f := range b.Figures() {
		if strings.Contains(f.Key, "4Kx3") {
			t.Errorf("the interrupted set has a figure %s", f.Key)
		}
	}
	// A run at a tenth of the speed regresses against the runs before it.
	slow := loadCopy(t, "run")[0]
	for i := range slow.Copy.Results {
		slow.Copy.Results[i].MBPerSec /= 10
	}
	regs := CheckRegression(slow, []*Run{a, a, a}, 20).Regressions
	if len(regs) == 0 || regs[0].Key != "readwrite Copy 64Kx2" || regs[0].Unit != "MB/s" {
		t.Errorf("Regressions = %+v, want readwrite Copy 64Kx2 in MB/s first", regs)
	}
}
