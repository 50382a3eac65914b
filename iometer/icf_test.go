package iometer

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

const shipped = "../docs/iometer/4k-random-write-mixes.icf"

func load(t *testing.T, path string) *Config {
	t.Helper()
	c, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestShippedWriteMixes(t *testing.T) {
	c := load(t, shipped)
	if c.RunTime != 10*time.Minute || c.RampUp != 30*time.Second || c.Version != "1.1.0" {
		t.Errorf("run %v ramp %v version %q, want 10m, 30s, 1.1.0", c.RunTime, c.RampUp, c.Version)
	}
	p, err := c.Plan(Options{Filename: "/dev/sdX", IOEngine: blockbench.EngineAuto, Direct: true})
	if err != nil {
		t.Fatal(err)
	}
	var reads []int
	for _, g := range p.Groups {
		w := g[0]
		if len(g) != 1 || w.IODepth != 1 || w.RW != blockbench.RandRW || w.BS != 4096 || !w.Direct || w.Filename != "/dev/sdX" ||
			w.Runtime != 10*time.Minute || w.RampTime != 30*time.Second || w.Size != 0 {
			t.Errorf("test %+v", w)
		}
		reads = append(reads, w.RWMixRead)
	}
	if !slices.Equal(reads, []int{99, 90, 50, 10}) {
		t.Errorf("read shares %v, want 99 90 50 10 (write 1/10/50/90 %%)", reads)
	}
	if !slices.ContainsFunc(c.Ignored, func(s string) bool { return strings.Contains(s, "RESULTS DISPLAY") }) {
		t.Errorf("the results display section is not reported as ignored: %q", c.Ignored)
	}
}

func TestTwoWorkers(t *testing.T) {
	c := load(t, "testdata/two-workers.icf")
	s, err := c.Setup(Options{Filename: "/tmp/f", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Workers) != 2 {
		t.Fatalf("%d workers run, want 2 (worker 3 has no target, Net 1 is a network worker)", len(s.Workers))
	}
	w1, w2 := s.Workers[0], s.Workers[1]
	if w1.Offset != 2048*512 || w1.Size != 16384*512 || w2.OutstandingIOs != 2 || w1.Seed == w2.Seed {
		t.Errorf("workers %+v %+v", w1, w2)
	}
	if w2.Buffer.Kind != blockbench.BufferZero || w1.Buffer.Kind != blockbench.BufferRandom {
		t.Errorf("buffers %v %v, want random (pattern 2) and zero (pattern 0)", w1.Buffer, w2.Buffer)
	}
	if !s.Cycle.Queue || s.Cycle.Start != 1 || s.Cycle.End != 4 || s.Cycle.Step != 2 || !s.Cycle.Exponential {
		t.Errorf("cycle %+v", s.Cycle)
	}
	p, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range p.Labels {
		rows = append(rows, l.Row)
	}
	want := []string{"Mixed sizes (1 outstanding I/Os)", "Mixed sizes (2 outstanding I/Os)", "Mixed sizes (4 outstanding I/Os)",
		"Sequential read (1 outstanding I/Os)", "Sequential read (2 outstanding I/Os)", "Sequential read (4 outstanding I/Os)"}
	if !slices.Equal(rows, want) {
		t.Errorf("tests %q\nwant  %q", rows, want)
	}
	for _, want := range []string{"RESULTS DISPLAY", "network address 10.0.0.2", "network worker \"Net 1\"",
		"worker \"Worker 3\", which has no disk target", "Disk Cycling", "Record Results ALL"} {
		if !slices.ContainsFunc(s.Ignored, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("ignored list lacks %q: %q", want, s.Ignored)
		}
	}
	if !slices.ContainsFunc(s.Notes, func(s string) bool { return strings.Contains(s, `target "C: \"System\"" ran on /tmp/f`) }) {
		t.Errorf("notes do not say the Windows target was replaced: %q", s.Notes)
	}
}

// mixICF has two specifications: one multi-line with weights and a
// sequential line, one single-line random mix; one worker, whole target.
const mixICF = `Version 1.1.0
'TEST SETUP ====================================================================
'Test Description
	mix check
'Run Time
'	hours      minutes    seconds
	0          0          1
'Ramp Up Time (s)
	0
'Test Type
	NORMAL
'END test setup
'ACCESS SPECIFICATIONS =========================================================
'Access specification name,default assignment
	Mixed sizes,NONE
'size,% of size,% reads,% random,delay,burst,align,reply
	512,20,100,100,0,1,0,0
	4096,50,70,100,0,1,0,0
	8192,30,0,0,0,1,0,0
'Access specification name,default assignment
	Random 30% read,NONE
'size,% of size,% reads,% random,delay,burst,align,reply
	8192,100,30,100,0,1,0,0
'END access specifications
'MANAGER LIST ==================================================================
'Manager ID, manager name
	1,HOST
'Manager network address
	
'Worker
	Worker 1
'Worker type
	DISK
'Default target settings for worker
'Number of outstanding IOs,test connection rate,transactions per connection,use fixed seed,fixed seed value
	4,DISABLED,1,ENABLED,12345
'Disk maximum size,starting sector,Data pattern
	0,0,2
'End default target settings for worker
'Assigned access specs
	Mixed sizes
	Random 30% read
'End assigned access specs
'Target assignments
'Target
	PHYSICALDRIVE:1
'Target type
	DISK
'End target
'End target assignments
'End worker
'End manager
'END manager list
Version 1.1.0
`

// Each specification runs with its read share and its size mix within 2
// points over 10k I/Os: one pass over a region of 10,000 of its largest
// transfers.
func TestICFRunsItsMix(t *testing.T) {
	c, err := Parse(strings.NewReader(mixICF), "mix.icf")
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Setup(Options{Filename: filepath.Join(t.TempDir(), "f"), Size: 10_000 * 8192, IOEngine: blockbench.EngineAuto})
	if err != nil {
		t.Fatal(err)
	}
	s.OnePass, s.Runtime = true, 0
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Iometer.Tests) != 2 || len(res.Jobs) != 2 {
		t.Fatalf("%d tests, %d jobs, want 2 and 2", len(res.Iometer.Tests), len(res.Jobs))
	}
	for k, spec := range s.Specs {
		job := res.Jobs[k]
		total := job.Read.TotalIOs + job.Write.TotalIOs
		if total != 10_000 {
			t.Fatalf("%s: %d I/Os, want 10000", spec.Name, total)
		}
		var wantRead float64
		for i, l := range spec.Lines {
			got := job.AccessLines[i]
			within(t, spec.Name+" share of line", i, pct(got.IOs, total), float64(l.Weight))
			within(t, spec.Name+" reads of line", i, pct(got.Reads, got.IOs), float64(l.ReadPct))
			wantRead += float64(l.Weight*l.ReadPct) / 100
		}
		within(t, spec.Name+" read share", -1, pct(job.Read.TotalIOs, total), wantRead)
		if it := res.Iometer.Tests[k]; it.AccessSpec != spec.Name || it.OutstandingIOs != 4 {
			t.Errorf("test %d is %q at %d outstanding I/Os", k, it.AccessSpec, it.OutstandingIOs)
		}
	}
	if seed := res.Jobs[0].Config.Seed; seed != 12345 {
		t.Errorf("seed %d, want the file's fixed seed 12345", seed)
	}
}

func pct(n, of int64) float64 { return float64(n) / float64(of) * 100 }

func within(t *testing.T, what string, line int, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 2 {
		t.Errorf("%s %d: %.2f%%, want %.1f%% within 2 points", what, line+1, got, want)
	}
}

func TestMalformed(t *testing.T) {
	lines := strings.Split(mixICF, "\n")
	// edit replaces line n (from 1) of mixICF.
	edit := func(n int, with string) string {
		l := slices.Clone(lines)
		l[n-1] = with
		return strings.Join(l, "\n")
	}
	cases := []struct {
		name, text string
		line       int
		want       string
	}{
		{"empty", "", 0, "empty"},
		{"no version", strings.Join(lines[1:], "\n"), 1, "not Iometer's version line"},
		{"bad version", edit(1, "Version one"), 1, "not Iometer's version line"},
		{"run time not numbers", edit(7, "\t0 zero 1"), 7, "not a whole number"},
		{"run time two numbers", edit(7, "\t0 1"), 7, "3 number(s)"},
		{"negative ramp", edit(9, "\t-1"), 9, "out of range"},
		{"unknown test type", edit(11, "\tCYCLE_EVERYTHING"), 11, "not one of Iometer's"},
		{"unknown setup key", edit(10, "'Test Flavour"), 10, "not a TEST SETUP setting"},
		{"weights not 100", edit(19, "\t8192,20,0,0,0,1,0,0"), 15, "sum to 90"},
		{"line of seven", edit(18, "\t4096,50,70,100,0,1,0"), 18, "8 numbers"},
		{"read above 100", edit(18, "\t4096,50,170,100,0,1,0,0"), 18, "0..100"},
		{"zero size", edit(17, "\t0,20,100,100,0,1,0,0"), 17, "transfer size 0"},
		{"reply", edit(23, "\t8192,100,30,100,0,1,0,512"), 23, "reply size 512"},
		{"spec without comma", edit(15, "\tMixed sizes"), 15, "NAME,DEFAULT_ASSIGNMENT"},
		{"bad assignment", edit(15, "\tMixed sizes,SOMETIMES"), 15, "default assignment"},
		{"no column header", edit(16, "\t512,20,100,100,0,1,0,0"), 16, "was expected"},
		{"unknown section", edit(13, "'ACCESS PATTERNS ===="), 13, "not the start of an Iometer section"},
		{"bad worker type", edit(33, "\tTAPE"), 33, "not DISK"},
		{"zero outstanding", edit(36, "\t0,DISABLED,1,ENABLED,12345"), 36, "outstanding IOs"},
		{"bad seed flag", edit(36, "\t4,DISABLED,1,MAYBE,12345"), 36, "use fixed seed"},
		{"negative sectors", edit(38, "\t-8,0,2"), 38, "sector counts"},
		{"data pattern 3", edit(38, "\t0,0,3"), 38, "data pattern"},
		{"unknown spec assigned", edit(42, "\tNo such spec"), 42, "does not define"},
		{"unknown worker line", edit(44, "'Target list"), 44, "in worker"},
		{"cut short", strings.Join(lines[:30], "\n"), 30, "ends where"},
		{"section never ends", "Version 1.1.0\n'RESULTS DISPLAY ===\n'Bar chart 1 statistic\n\tIOps", 2, "has no"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.text), "bad.icf")
			if err == nil {
				_, err = c.Setup(Options{Filename: "/tmp/f"})
			}
			if err == nil {
				t.Fatal("accepted")
			}
			var ue *result.UsageError
			wantAt := "bad.icf"
			if tc.line > 0 {
				wantAt = "bad.icf:" + itoa(tc.line)
			}
			if !errorsAs(err, &ue) || ue.Flag != wantAt || !strings.Contains(ue.Msg, tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v; want one line at %s saying %q", err, wantAt, tc.want)
			}
		})
	}
}

func TestRunTimeZeroNeedsRuntime(t *testing.T) {
	c, err := Parse(strings.NewReader(strings.Replace(mixICF, "\t0          0          1", "\t0 0 0", 1)), "zero.icf")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Setup(Options{Filename: "/tmp/f"}); !result.IsUsage(err) || !strings.Contains(err.Error(), "--runtime") {
		t.Fatalf("err = %v, want a usage error asking for --runtime", err)
	}
	s, err := c.Setup(Options{Filename: "/tmp/f", Runtime: 3 * time.Second})
	if err != nil || s.Runtime != 3*time.Second {
		t.Fatalf("setup %v, %v: want --runtime to replace the file's 0", s.Runtime, err)
	}
}

func TestNoManagerList(t *testing.T) {
	text := mixICF[:strings.Index(mixICF, "'MANAGER LIST")]
	text = strings.Replace(text, "Random 30% read,NONE", "Random 30% read,DISK", 1)
	c, err := Parse(strings.NewReader(text), "specs-only.icf")
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Setup(Options{Filename: "/tmp/f"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Workers) != 1 || !slices.Equal(s.Workers[0].Specs, []int{1}) {
		t.Errorf("workers %+v: want one running the DISK-assigned spec", s.Workers)
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range []string{shipped, "testdata/two-workers.icf", "testdata/oltp_32697.icf", "testdata/tp-qemu/iometer_multi_3disks.icf"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(mixICF))
	f.Add([]byte("Version 1.1.0\n'ACCESS SPECIFICATIONS\n'Access specification name,default assignment\n\tx,ALL\n'h\n\t1,100,0,0,0,0,0,0\n'END access specifications\n"))
	f.Add([]byte(oldICF))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(bytes.NewReader(b), "fuzz.icf")
		if err != nil {
			if !result.IsUsage(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one usage line", err)
			}
			return
		}
		s, err := c.Setup(Options{Filename: "/tmp/f", Runtime: time.Second})
		if err != nil {
			if !result.IsUsage(err) {
				t.Fatalf("setup error %v is not a usage error", err)
			}
			return
		}
		_, _ = s.Plan() // must not panic
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

func errorsAs(err error, target **result.UsageError) bool { return errors.As(err, target) }

// TestRunTimeOverflowRefused is case 10 of issue 20: a run time of
// "0 2147483647 2147483647" overflowed into a crash; each part and the sum
// are bounded.
func TestRunTimeOverflowRefused(t *testing.T) {
	b, err := os.ReadFile("testdata/two-workers.icf")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "'Run Time") {
			lines[i+2] = "\t0         2147483647 2147483647"
		}
	}
	_, err = Parse(strings.NewReader(strings.Join(lines, "\n")), "t.icf")
	if err == nil || !strings.Contains(err.Error(), "out of range") || !result.IsUsage(err) {
		t.Fatalf("err = %v, want the run time refused as out of range", err)
	}
}

// TestCyclingFromFile runs each cycling test type from a file as Iometer
// writes it (testdata/two-workers.icf, its Test Type and cycling lines
// edited): the tests planned are Iometer's, one per spec and step.
func TestCyclingFromFile(t *testing.T) {
	b, err := os.ReadFile("testdata/two-workers.icf")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	at := func(prefix string) int {
		i := slices.IndexFunc(lines, func(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), prefix) })
		if i < 0 {
			t.Fatalf("testdata/two-workers.icf has no %q line", prefix)
		}
		return i
	}
	workerCycle, queueCycle, testType := at("'Worker Cycling")+2, at("'Queue Depth Cycling")+2, at("'Test Type")+1
	for _, tc := range []struct {
		name, typ, workers, queue string
		want                      []string // the first spec's tests
		workersPerTest            []int
	}{
		{"outstanding linear", "CYCLE_OUTSTANDING_IOS", "1 1 LINEAR", "1 16 4 LINEAR",
			[]string{"1", "5", "9", "13"}, []int{2, 2, 2, 2}},
		{"outstanding exponential", "CYCLE_OUTSTANDING_IOS", "1 1 LINEAR", "1 32 2 EXPONENTIAL",
			[]string{"1", "2", "4", "8", "16", "32"}, []int{2, 2, 2, 2, 2, 2}},
		{"outstanding and targets", "CYCLE_OUTSTANDING_IOS_AND_TARGETS", "1 1 LINEAR", "2 8 3 LINEAR",
			[]string{"2", "5", "8"}, []int{2, 2, 2}},
		{"workers linear", "CYCLE_WORKERS", "1 1 LINEAR", "1 1 1 LINEAR",
			[]string{"1 workers", "2 workers"}, []int{1, 2}},
		{"normal", "NORMAL", "1 1 LINEAR", "1 4 2 EXPONENTIAL",
			nil, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := slices.Clone(lines)
			l[testType], l[workerCycle], l[queueCycle] = "\t"+tc.typ, "\t"+tc.workers, "\t"+tc.queue
			c, err := Parse(strings.NewReader(strings.Join(l, "\n")), "cycle.icf")
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Plan(Options{Filename: "/tmp/f", Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			var per []int
			for i, lb := range p.Labels {
				if !strings.HasPrefix(lb.Row, "Mixed sizes") {
					continue
				}
				rows = append(rows, lb.Row)
				per = append(per, len(p.Groups[i]))
			}
			var want []string
			for _, w := range tc.want {
				if strings.HasSuffix(w, "workers") {
					want = append(want, "Mixed sizes ("+w+")")
				} else {
					want = append(want, "Mixed sizes ("+w+" outstanding I/Os)")
				}
			}
			if tc.want == nil {
				want = []string{"Mixed sizes"}
			}
			if !slices.Equal(rows, want) || !slices.Equal(per, tc.workersPerTest) {
				t.Errorf("tests %q with %v workers\nwant  %q with %v", rows, per, want, tc.workersPerTest)
			}
		})
	}
}
