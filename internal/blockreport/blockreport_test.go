package blockreport

import (
	"bytes"
	"cmp"
	"flag"
	"github.com/clydebench/clyde/result"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/block")

const dir = "../../testdata/block"

// The inputs are saved results written by blockbench's golden tests from
// seeded workers on a fixed clock; rendering them again is what
// `clyde report FILE` does.
func TestGoldens(t *testing.T) {
	// CrystalDiskMark's Date line is local time.
	defer func(l *time.Location) { time.Local = l }(time.Local)
	time.Local = time.UTC
	cases := []struct{ in, format, golden string }{
		{"result.json", "text", "result.txt"},
		{"result.json", "csv", "result.csv"},
		{"result.json", "json", "result.json"},
		{"profile-cdm.json", "text", "profile-cdm.txt"},
		{"profile-iometer-mix.json", "text", "profile-iometer-mix.txt"},
		{"profile-orion.json", "text", "profile-orion.txt"},
		{"profile-bs-sweep.json", "text", "profile-bs-sweep.txt"},
		{"profile-iometer-mix.json", "csv", "profile-iometer-mix.csv"},
		{"iometer-icf.json", "text", "iometer-icf.txt"},
		{"cdm-both-mix.json", "text", "cdm-both-mix.txt"},
		{"cdm-both-mix.json", "csv", "cdm-both-mix.csv"},
		{"cdm-real-buffered.json", "text", "cdm-real-buffered.txt"},
		{"cdm-partial.json", "text", "cdm-partial.txt"},
		{"cdm-partial.json", "csv", "cdm-partial.csv"},
		{"cdm-interrupted-early.json", "text", "cdm-interrupted-early.txt"},
		{"iometer-icf.json", "csv", "iometer-icf.csv"},
	}
	for _, tc := range cases {
		t.Run(tc.golden+"/"+tc.format, func(t *testing.T) {
			res, err := decodeFile(filepath.Join(dir, tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Write(&got, tc.format, res); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.golden)
			if *update && tc.format != "json" {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s differs (rerun with -update if intended):\n%s", tc.golden, got.String())
			}
		})
	}
}

func TestTablesHaveTheirShape(t *testing.T) {
	cases := map[string][]string{
		"profile-cdm.json":         {"[Read]", "[Write]", "SEQ    1MiB (Q=  8, T= 1)", "RND    4KiB (Q= 32, T= 1)", "RND    4KiB (Q=  1, T= 1)", "(x2)", "* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]", "Time: Measure 5 sec / Interval 5 sec \n"},
		"profile-iometer-mix.json": {"Access Specification", "4K; 99% Read; 100% random", "4K; 0% Read; 100% random", "Maximum Response Time", "% CPU"},
		"profile-orion.json":       {"Maximum Small IOPS=", "Minimum Small Latency=", "Maximum Large MBPS=", "@ Small=0 and Large="},
		"profile-bs-sweep.json":    {"1k", "1m", "p99 lat (us)"},
	}
	for in, wants := range cases {
		t.Run(in, func(t *testing.T) {
			res, err := decodeFile(filepath.Join(dir, in))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := Text(&out, res); err != nil {
				t.Fatal(err)
			}
			for _, w := range wants {
				if !strings.Contains(out.String(), w) {
					t.Errorf("table lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestUnknownFormat(t *testing.T) {
	if err := Write(&bytes.Buffer{}, "xml", nil); err == nil {
		t.Error("xml accepted")
	}
}

func FuzzDecode(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(dir, "result.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"kind":"block","schema_version":1,"jobs":[{"read":{"lat_ns":{"percentile":{"x":1}}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := result.DecodeBlock(b)
		if err != nil {
			return
		}
		for _, format := range Formats {
			_ = Write(&bytes.Buffer{}, format, res) // must not panic
		}
	})
}

// decodeFile reads a saved block result through the one decoder.
func decodeFile(path string) (*result.Block, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return result.DecodeBlock(b)
}

// A job whose CPU figures are the whole process's (no per-thread figure on
// the platform) says so on its cpu line; one with its threads' own does not.
func TestCPUScopeIsPrinted(t *testing.T) {
	for _, tc := range []struct {
		scope string
		says  bool
	}{{result.CPUScopeProcess, true}, {result.CPUScopeThreads, false}, {"", false}} {
		t.Run(cmp.Or(tc.scope, "none"), func(t *testing.T) {
			res := &result.Block{Jobs: []result.BlockJob{{JobName: "j", CPUKnown: true, UsrCPU: 1, SysCPU: 2, CPUScope: tc.scope}}}
			var b bytes.Buffer
			if err := Text(&b, res); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "usr=1.00%, sys=2.00% (whole process"); got != tc.says {
				t.Fatalf("scope %q: whole-process note printed %v, want %v:\n%s", tc.scope, got, tc.says, b.String())
			}
		})
	}
}

// A job of block sizes per direction heads its text as fio's does: each
// direction's range; one of a single size, that size.
func TestBlockSizesHead(t *testing.T) {
	for _, tc := range []struct {
		sizes *result.BlockSizes
		want  string
	}{
		{nil, "j: (bs=4096, rw=randrw"},
		{&result.BlockSizes{Read: result.BlockSizeDir{MinBytes: 512, MaxBytes: 65536}, Write: result.BlockSizeDir{MinBytes: 8192, MaxBytes: 8192},
			Trim: result.BlockSizeDir{MinBytes: 8192, MaxBytes: 8192}}, "j: (bs=(R) 512-65536, (W) 8192, (T) 8192, rw=randrw"},
	} {
		res := &result.Block{Jobs: []result.BlockJob{{JobName: "j", Config: result.BlockJobConfig{RW: "randrw", BSBytes: 4096, BlockSizes: tc.sizes}}}}
		var b bytes.Buffer
		if err := Text(&b, res); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("head %q not in:\n%s", tc.want, b.String())
		}
	}
}

// TestMixedText: fio's unified_rw_reporting in the text report: "mixed"
// alone for mixed, after the directions for both.
func TestMixedText(t *testing.T) {
	dir := result.BlockDir{TotalIOs: 2, IOBytes: 8192}
	for _, tc := range []struct {
		name string
		job  result.BlockJob
		want string
	}{
		{"mixed", result.BlockJob{JobName: "j", Read: dir, Write: dir, Mixed: &result.BlockDir{TotalIOs: 4}, MixedOnly: true}, "mixed"},
		{"both", result.BlockJob{JobName: "j", Read: dir, Write: dir, Mixed: &result.BlockDir{TotalIOs: 4}}, "read write mixed"},
		{"none", result.BlockJob{JobName: "j", Read: dir}, "read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, &result.Block{Jobs: []result.BlockJob{tc.job}}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(b.String(), "\n") {
				if name, _, ok := strings.Cut(strings.TrimSpace(line), ": IOPS="); ok {
					got = append(got, name)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("directions %q, want %q:\n%s", got, tc.want, b.String())
			}
		})
	}
}
