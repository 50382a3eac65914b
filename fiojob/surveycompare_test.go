package fiojob

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// surveyJob is one entry as both tools report a 16 MiB random read at
// depth 8: 4096 reads of 4 KiB, the queue full for nearly all of them.
func surveyJob() fioJob {
	j := fioJob{Name: "job", Options: result.Options{{Name: "rw", Value: "randread"}, {Name: "bs", Value: "4k"}},
		DepthLevel: map[string]float64{"1": 0.1, "2": 0.1, "4": 0.1, "8": 99.7, "16": 0, "32": 0, ">=64": 0}}
	j.Read = dirIO{IOBytes: 16 << 20, TotalIOs: 4096}
	return j
}

// TestSurveyCompare: every field the survey compares is named when clyde's
// run differs in it, and nothing when the runs agree, so a clyde that
// silently does something else fails the survey.
func TestSurveyCompare(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(c *fioJob)
		timed bool
		want  []string
	}{
		{"the same", func(c *fioJob) {}, false, nil},
		{"I/O counts", func(c *fioJob) { c.Read.TotalIOs = 2048 }, false, []string{"ios", "block size"}},
		{"bytes", func(c *fioJob) { c.Read.IOBytes, c.Read.TotalIOs = 8<<20, 2048 }, false, []string{"bytes", "ios"}},
		{"timed: bytes are the speed's", func(c *fioJob) { c.Read.IOBytes, c.Read.TotalIOs = 8<<20, 2048 }, true, nil},
		{"timed: block size", func(c *fioJob) { c.Read.IOBytes = 32 << 20 }, true, []string{"block size"}},
		{"a direction missing", func(c *fioJob) { c.Read, c.Write = dirIO{}, c.Read }, true, []string{"bytes"}},
		{"trim", func(c *fioJob) { c.Trim = dirIO{IOBytes: 4096, TotalIOs: 1} }, false, []string{"trim", "ios"}},
		{"group", func(c *fioJob) { c.Group = 1 }, false, []string{"groupid"}},
		{"name", func(c *fioJob) { c.Name = "other" }, false, []string{"name"}},
		{"depth", func(c *fioJob) { c.DepthLevel = map[string]float64{"1": 99.7, "8": 0.3} }, false, []string{"depth", "depth distribution"}},
		{"depth one bucket down, as fio counts", func(c *fioJob) {
			c.DepthLevel = map[string]float64{"1": 0.1, "2": 0.1, "4": 99.7, "8": 0.1}
		}, false, nil},
		{"depth distribution", func(c *fioJob) {
			c.DepthLevel = map[string]float64{"1": 0.1, "2": 0.1, "4": 30, "8": 69.8}
		}, false, []string{"depth distribution"}},
		{"job options: a value", func(c *fioJob) {
			c.Options = result.Options{{Name: "rw", Value: "randread"}, {Name: "bs", Value: "4K"}}
		}, false, []string{"job options"}},
		{"job options: one more", func(c *fioJob) {
			c.Options = result.Options{{Name: "rw", Value: "randread"}, {Name: "bs", Value: "4k"}, {Name: "size", Value: "16m"}}
		}, false, []string{"job options"}},
		{"job options: one less", func(c *fioJob) { c.Options = result.Options{{Name: "rw", Value: "randread"}} }, false, []string{"job options"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := surveyJob(), surveyJob()
			tc.edit(&c)
			var fields []string
			for _, d := range surveyCompare(view{jobs: []fioJob{f}}, view{jobs: []fioJob{c}}, tc.timed) {
				field, _, _ := strings.Cut(d, ": ")
				if !slices.Contains(fields, field) {
					fields = append(fields, field)
				}
			}
			slices.Sort(fields)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(fields, want) {
				t.Errorf("fields %q, want %q", fields, want)
			}
		})
	}
	if d := surveyCompare(view{jobs: []fioJob{surveyJob()}}, view{jobs: []fioJob{surveyJob(), surveyJob()}}, false); len(d) != 1 || !strings.HasPrefix(d[0], "jobs: ") {
		t.Errorf("entries: %q", d)
	}
}

// TestSurveyCheck: the expectations fail a regression, a difference or a
// refusal they do not name, and pass what they say or better.
func TestSurveyCheck(t *testing.T) {
	want := map[string]expect{
		"a.fio": agrees(),
		"b.fio": refusedFor("option bssplit "),
		"c.fio": differsIn("why", "job options"),
		"d.fio": refusedByName(`unknown engine "rbd"`),
		"f.fio": notRunFor("hours"),
		"g.fio": fioHangsOn("hangs"),
	}
	for _, tc := range []struct {
		name string
		got  outcome
		fail string // "" when allowed
	}{
		{"agrees as listed", outcome{name: "a.fio", kind: "agree"}, ""},
		{"agreeing file differs", outcome{name: "a.fio", kind: "differs", fields: []string{"bytes"}, detail: []string{"bytes: x"}}, "now differs"},
		{"agreeing file refused", outcome{name: "a.fio", kind: "refused", reason: "option x"}, "it ran before"},
		{"refused as listed", outcome{name: "b.fio", kind: "refused", reason: "option bssplit is not supported"}, ""},
		{"refused for another reason", outcome{name: "b.fio", kind: "refused", reason: "option filesize is not supported"}, "not \"option bssplit \""},
		{"refused file now agrees", outcome{name: "b.fio", kind: "agree"}, ""},
		{"refused file now runs and differs", outcome{name: "b.fio", kind: "differs", fields: []string{"ios"}, detail: []string{"ios: x"}}, "differs silently in ios"},
		{"differs as listed", outcome{name: "c.fio", kind: "differs", fields: []string{"job options"}}, ""},
		{"differs in more", outcome{name: "c.fio", kind: "differs", fields: []string{"job options", "bytes"}, detail: []string{"bytes: fio 1, clyde 2"}}, "differs silently in bytes: bytes: fio 1"},
		{"differing file now agrees", outcome{name: "c.fio", kind: "agree"}, ""},
		{"expected refusal", outcome{name: "d.fio", kind: "refused", reason: `unknown engine "rbd"; accepted: psync`}, ""},
		{"fio fails", outcome{name: "c.fio", kind: "fio failed", reason: "fio: exit status 1"}, "fio failed"},
		{"clyde fails", outcome{name: "c.fio", kind: "clyde failed", reason: "boom"}, "clyde failed"},
		{"not listed", outcome{name: "e.fio", kind: "agree"}, "not in surveyExpect"},
		{"not run, as listed", outcome{name: "f.fio", kind: "not run", reason: "hours"}, ""},
		{"fio hangs, as listed", outcome{name: "g.fio", kind: "fio hangs", reason: "hangs"}, ""},
		{"not run file now refused", outcome{name: "f.fio", kind: "refused", reason: "option x"}, "refused for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fails := surveyCheck([]outcome{tc.got}, want)
			switch {
			case tc.fail == "" && len(fails) > 0:
				t.Errorf("failed: %q", fails)
			case tc.fail != "" && (len(fails) != 1 || !strings.Contains(fails[0], tc.fail)):
				t.Errorf("fails %q, want one saying %q", fails, tc.fail)
			}
		})
	}
}

// TestSurveyBlockSizes: which files get the block-size log, how it is
// read (fio's lat log: time, value, direction, block size, ...) and when
// two runs' shares of each size differ.
func TestSurveyBlockSizes(t *testing.T) {
	for text, varies := range map[string]bool{
		"[j]\nbssplit=4k/50:8k/50\n": true, "[j]\n bsrange=1k-4k\n": true, "[j]\nbs=4k,8k\n": true,
		"[j]\nblocksize_range=4k-16k\n": true, "[j]\nbs=4k\n": false, "[j]\nbs=4k ; one size, one, more\n": false,
		"[j]\nrw=randrw:4\n": false,
	} {
		if variesBS.MatchString(text) != varies {
			t.Errorf("%q: varies %v, want %v", text, !varies, varies)
		}
	}
	dir := t.TempDir()
	log := "1, 100, 0, 4096, 0\n2, 100, 0, 8192, 0\n3, 100, 0, 4096, 0\n4, 90, 1, 4096, 0\n"
	if err := os.WriteFile(filepath.Join(dir, surveyBSLog+"_lat.1.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := bsShares(dir)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got[0][4096]-200.0/3) > 1e-9 || math.Abs(got[0][8192]-100.0/3) > 1e-9 || got[1][4096] != 100 {
		t.Errorf("shares %v", got)
	}
	if d := compareBSShares(got, got); d != "" {
		t.Errorf("a run against itself: %s", d)
	}
	other := map[int]map[int64]float64{0: {4096: 50, 8192: 50}, 1: {4096: 100}}
	if d := compareBSShares(got, other); !strings.HasPrefix(d, "direction 0:") {
		t.Errorf("67/33 against 50/50: %q", d)
	}
	if _, err := bsShares(t.TempDir()); err == nil {
		t.Error("no log read as no difference")
	}
}

// TestSurveyCompareDrawn: a run whose sizes are drawn per I/O is compared
// within what its draws vary by: the I/O count, the average size and the
// bytes (by each worker's largest size), the read share by I/Os; beyond
// that each is named.
func TestSurveyCompareDrawn(t *testing.T) {
	// 4096 I/Os of 4k and 64k, half each, in each direction: sizes' cv
	// near 0.9.
	var ios []loggedIO
	for i := range 4096 {
		ios = append(ios, loggedIO{dir: i % 2, size: []int64{4 << 10, 64 << 10}[i/2%2]})
	}
	sh := shareOf(ios)
	base := func() fioJob {
		j := surveyJob()
		j.Read = dirIO{IOBytes: 4096 * 34 << 10, TotalIOs: 4096}
		return j
	}
	mixed := func(c *fioJob, reads int64) {
		c.Read = dirIO{IOBytes: reads * 34 << 10, TotalIOs: reads}
		c.Write = dirIO{IOBytes: (4096 - reads) * 34 << 10, TotalIOs: 4096 - reads}
	}
	for _, tc := range []struct {
		name  string
		fio   func(c *fioJob)
		clyde func(c *fioJob)
		want  []string
	}{
		{"counts within the draws", nil, func(c *fioJob) { c.Read.TotalIOs = 4096 + 100; c.Read.IOBytes = 4196 * 34 << 10 }, []string{"bytes"}},
		{"bytes within a worker's largest size", nil, func(c *fioJob) { c.Read.IOBytes += 60 << 10; c.Read.TotalIOs++ }, nil},
		{"counts beyond the draws", nil, func(c *fioJob) { c.Read.TotalIOs = 4096 + 400 }, []string{"ios"}},
		{"average size beyond the draws", nil, func(c *fioJob) { c.Read.IOBytes = 4096 * 40 << 10 }, []string{"bytes", "block size"}},
		{"read share by I/Os, within", func(c *fioJob) { mixed(c, 2048) }, func(c *fioJob) { mixed(c, 2048+80) }, nil},
		{"read share by I/Os, beyond", func(c *fioJob) { mixed(c, 2048) }, func(c *fioJob) { mixed(c, 2048+300) }, []string{"read share"}},
		{"read share by bytes 6 points off, by I/Os the same", func(c *fioJob) { mixed(c, 2048) }, func(c *fioJob) {
			c.Read.IOBytes, c.Write.IOBytes = 2048*38<<10, 2048*30<<10 // larger reads, within what the draws vary by
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := base(), base()
			if tc.fio != nil {
				tc.fio(&f)
				tc.fio(&c)
			}
			tc.clyde(&c)
			fv, cv := view{jobs: []fioJob{f}, drawn: &sh, bytesSlack: 64 << 10}, view{jobs: []fioJob{c}, drawn: &sh, bytesSlack: 64 << 10}
			var fields []string
			for _, d := range surveyCompare(fv, cv, false) {
				field, _, _ := strings.Cut(d, ": ")
				if !slices.Contains(fields, field) {
					fields = append(fields, field)
				}
			}
			slices.Sort(fields)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(fields, want) {
				t.Errorf("fields %q, want %q", fields, want)
			}
		})
	}
}
