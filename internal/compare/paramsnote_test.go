package compare

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestParamsNote(t *testing.T) {
	fsRun := func(sizeMiB int64, filesK int, dir string) *Run {
		return &Run{FS: &result.FS{Config: result.FSConfig{FileSizeMiB: sizeMiB, FilesK: filesK, Dir: dir, ChunkBytes: 8192}}}
	}
	// Where a run was made does not count; what it did does.
	if n := ParamsNote([]*Run{fsRun(1024, 16, "/mnt/a"), fsRun(1024, 16, "/mnt/b")}); n != "" {
		t.Errorf("same parameters in two places: %q, want no note", n)
	}
	if n := ParamsNote([]*Run{fsRun(1024, 16, "/mnt/a")}); n != "" {
		t.Errorf("one run: %q", n)
	}
	n := ParamsNote([]*Run{fsRun(1536, 128, "/mnt/a"), fsRun(1536, 768, "/mnt/b"), fsRun(1536, 128, "/mnt/c")})
	for _, want := range []string{"A, C: ", "-n 128", "; B: ", "-n 768", "not like for like"} {
		if !strings.Contains(n, want) {
			t.Errorf("--auto's two sizes: %q lacks %q", n, want)
		}
	}
	if strings.Contains(n, "do not show") {
		t.Errorf("%q: the flags do show the difference", n)
	}
	// A difference the key flags do not show is still named.
	a, b := fsRun(1024, 16, "/mnt/a"), fsRun(1024, 16, "/mnt/b")
	b.FS.Config.Direct = !a.FS.Config.Direct
	if n := ParamsNote([]*Run{a, b}); !strings.Contains(n, "A: ") || !strings.Contains(n, "; B: ") {
		t.Errorf("a hidden difference: %q", n)
	}
}

// TestCDMSettingsInKey: every CrystalDiskMark setting that changes what its
// rows hold, and the fill level, separate runs in the regression check's
// key (Params) and are named in the note (KeyFlags).
func TestCDMSettingsInKey(t *testing.T) {
	cdmRun := func(edit func(*result.Block)) *Run {
		b := &result.Block{
			Profile: &result.BlockProfile{Name: "cdm"},
			CDM:     &result.BlockCDM{Preset: "default", TestData: "random", Aggregate: "best", Passes: 5, Direct: true},
			Space:   &result.BlockSpace{Path: "/mnt/ssd"},
			Jobs:    []result.BlockJob{{Config: result.BlockJobConfig{RW: "read", BSBytes: 1 << 20, SizeBytes: 1 << 30, IODepth: 8, NumJobs: 1, Direct: true}}},
		}
		if edit != nil {
			edit(b)
		}
		return &Run{Block: b}
	}
	base := cdmRun(nil)
	if n := ParamsNote([]*Run{base, cdmRun(nil)}); n != "" {
		t.Fatalf("two alike runs: %q", n)
	}
	tests := []struct {
		name, flag string
		edit       func(*result.Block)
	}{
		{"fill", "--fill 50%", func(b *result.Block) { b.Space.Fill = &result.BlockFill{Request: "50%"} }},
		{"test data", "--test-data both", func(b *result.Block) { b.CDM.TestData = "both" }},
		{"passes kept", "--passes-kept average", func(b *result.Block) { b.CDM.Aggregate = "average" }},
		{"passes", "--passes 3", func(b *result.Block) { b.CDM.Passes = 3 }},
		{"preset", "--cdm-preset nvme", func(b *result.Block) { b.CDM.Preset = "nvme" }},
		{"mix", "--mix --mix-read 50", func(b *result.Block) { b.CDM.MixReadPct = 50 }},
		{"buffered", "--buffered", func(b *result.Block) { b.CDM.Direct = false; b.Jobs[0].Config.Direct = false }},
		{"size", "--size 64m", func(b *result.Block) { b.Jobs[0].Config.SizeBytes = 64 << 20 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			other := cdmRun(tc.edit)
			if other.Params() == base.Params() {
				t.Errorf("Params does not tell %s apart", tc.name)
			}
			if f := other.KeyFlags(); !strings.Contains(f, tc.flag) {
				t.Errorf("KeyFlags %q lacks %q", f, tc.flag)
			}
			n := ParamsNote([]*Run{base, other})
			if !strings.Contains(n, "B: ") || !strings.Contains(n, tc.flag) || strings.Contains(n, "do not show") {
				t.Errorf("note %q does not name %q", n, tc.flag)
			}
		})
	}
}

// TestTargetIsWhatTheUserNamed: a run's target is the same from run to run
// for the same place: a cdm run's directory, not the file it made in a new
// private directory each time; a relative -d as the absolute directory.
func TestTargetIsWhatTheUserNamed(t *testing.T) {
	prov := func(dir string) result.Provenance {
		return result.Provenance{Filesystem: result.Filesystem{Path: dir}}
	}
	tests := []struct {
		name string
		run  *Run
		want string
	}{
		{"cdm in a private directory", &Run{Block: &result.Block{Provenance: prov("/srv/mnt"), Profile: &result.BlockProfile{Name: "cdm"},
			Target: result.BlockTarget{Path: "mnt/clyde-cdm.tmp", ResolvedPath: "mnt/clyde.21493.bb9eeba8/clyde-cdm.tmp", Kind: "file", Created: true}}}, "/srv/mnt"},
		{"relative file", &Run{Block: &result.Block{Provenance: prov("/srv/mnt"),
			Target: result.BlockTarget{Path: "link/x.dat", ResolvedPath: "mnt/x.dat", Kind: "file"}}}, "/srv/mnt/x.dat"},
		{"device", &Run{Block: &result.Block{Provenance: prov("/dev"),
			Target: result.BlockTarget{Path: "/dev/disk/by-id/x", ResolvedPath: "/dev/sdb", Kind: "block_device"}}}, "/dev/sdb"},
		{"windows file", &Run{Block: &result.Block{Provenance: prov(`D:\bench`),
			Target: result.BlockTarget{Path: `iobw.tst`, ResolvedPath: `D:\bench\iobw.tst`, Kind: "file"}}}, `D:\bench\iobw.tst`},
		{"old result without a filesystem path", &Run{Block: &result.Block{
			Target: result.BlockTarget{Path: "x.dat", ResolvedPath: "x.dat", Kind: "file"}}}, "x.dat"},
		{"fs relative -d", &Run{FS: &result.FS{Provenance: prov("/srv/mnt"), Config: result.FSConfig{Dir: "mnt"}}}, "/srv/mnt"},
		{"fs import without a path", &Run{FS: &result.FS{Config: result.FSConfig{Dir: "/mnt/a"}}}, "/mnt/a"},
		{"copy", &Run{Copy: &result.Copy{Provenance: prov("/srv/a"), ToFilesystem: &result.Filesystem{Path: "/srv/b"},
			Config: result.CopyConfig{Dir: "a", To: "../b"}}}, "/srv/a -> /srv/b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.run.Target(); got != tc.want {
				t.Errorf("Target() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLegendNamesTheMachineName: two runs told apart by -m (ssd-a, ssd-b on
// one host) are named so in compare's legend.
func TestLegendNamesTheMachineName(t *testing.T) {
	run := func(name string) *Run {
		fs := &result.FS{Provenance: result.Provenance{Hostname: "box"}, Config: result.FSConfig{MachineName: name, Dir: "/mnt", FilesK: 16}}
		r := result.FSRun{Iteration: 1}
		r.Tests[result.SeqCreate] = result.FSTestResult{Test: result.SeqCreate, Ran: true, RatePerSec: 1000, RateUnit: "files/s", ElapsedNs: 2e9}
		fs.Runs = []result.FSRun{r}
		return &Run{Label: name + ".json", Source: "clyde JSON", FS: fs}
	}
	tab, err := Compare([]*Run{run("ssd-a"), run("box")})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "host box, -m ssd-a,") {
		t.Errorf("legend lacks -m ssd-a:\n%s", out)
	}
	if strings.Contains(out, "-m box") {
		t.Errorf("a machine name that is the host name is said twice:\n%s", out)
	}
}
