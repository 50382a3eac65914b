package compare

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/bonnie"
	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/verdict"
	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/compare")

const dir = "../../testdata/compare/"

func load(t *testing.T, names ...string) []*Run {
	t.Helper()
	var runs []*Run
	for _, n := range names {
		rs, err := Load(dir+n, nil)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, rs...)
	}
	return runs
}

func TestCompareGolden(t *testing.T) {
	tests := []struct {
		name  string
		files []string
	}{
		{"ssd-840pro-vs-m4", []string{"bonnie-1.96-ssd-840pro-vs-m4.txt"}},
		{"2.00a-filesystems", []string{"bonnie-2.00a-ext4.txt", "bonnie-2.00a-btrfs.txt", "bonnie-2.00a-tmpfs.txt", "bonnie-2.00a-ntfs3g.txt"}},
		{"2.00a-lines", []string{"bonnie-2.00a-lines.csv"}},
		// Two clyde fs -x 3 runs on one tmpfs (testdata/html/README.md):
		// every change with the rule's test, in the text, CSV and JSON.
		{"tmpfs-x3", []string{"../html/tmpfs-x3-a.json", "../html/tmpfs-x3-b.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := Compare(load(t, tc.files...))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := tb.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, dir+tc.name+".golden", buf.Bytes())
			if tc.name == "tmpfs-x3" {
				var c, j bytes.Buffer
				if err := tb.WriteCSV(&c); err != nil {
					t.Fatal(err)
				}
				if err := tb.WriteJSON(&j); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, dir+tc.name+".csv.golden", c.Bytes())
				checkGolden(t, dir+tc.name+".json.golden", j.Bytes())
			}
		})
	}
}

// checkGolden compares got with the golden file (rewritten with -update).
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (run with -update if meant):\n%s", golden, got)
	}
}

// The 1.96 report's figures, read from the text, are the ones printed.
func TestText196Figures(t *testing.T) {
	runs := load(t, "bonnie-1.96-ssd-840pro-vs-m4.txt")
	if len(runs) != 2 {
		t.Fatalf("%d runs, want the two reports", len(runs))
	}
	m4 := runs[1].FS
	if m4.Config.MachineName != "geek.sc" || m4.Config.FileSizeMiB != 2048 || m4.Config.FilesK != 256 ||
		m4.Config.MaxFileBytes != 4096 || m4.Config.MinFileBytes != 512 || m4.Config.Dirs != 16 {
		t.Fatalf("config %+v", m4.Config)
	}
	tr := m4.Runs[0].Tests
	checks := []struct {
		t    result.FSTest
		rate float64
		cpu  float64
	}{
		{result.PutChar, 2689, 97}, {result.PutBlock, 233683, 8}, {result.SeqCreate, 14095, 25},
		{result.SeqDelete, 714, 1}, {result.RandDelete, 611, 1},
	}
	for _, c := range checks {
		if tr[c.t].RatePerSec != c.rate || tr[c.t].CPUPercent != c.cpu {
			t.Errorf("%s: rate %v cpu %v, want %v %v", c.t.Name(), tr[c.t].RatePerSec, tr[c.t].CPUPercent, c.rate, c.cpu)
		}
	}
	if !tr[result.GetBlock].TooShort || tr[result.SeqDelete].Latency.MaxNs != 142e9 {
		t.Errorf("get_block too short %v, seq_del latency %d", tr[result.GetBlock].TooShort, tr[result.SeqDelete].Latency.MaxNs)
	}
}

// Without its CSV line a 2.00a text report gives the IO rates (to the text's
// rounding) and marks the file rates unknown; with it, the CSV's figures.
func TestText200aWithAndWithoutCSV(t *testing.T) {
	for _, name := range []string{"ext4", "btrfs", "tmpfs", "ntfs3g"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(dir + "bonnie-2.00a-" + name + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
			csvLine := lines[len(lines)-1]
			l, err := bonnie.ParseCSVLine(csvLine)
			if err != nil {
				t.Fatal(err)
			}
			textOnly, err := LoadBytes("t", []byte(strings.Join(lines[:len(lines)-1], "\n")))
			if err != nil {
				t.Fatal(err)
			}
			both, err := LoadBytes("t", data)
			if err != nil {
				t.Fatal(err)
			}
			if len(textOnly) != 1 || len(both) != 1 {
				t.Fatalf("runs: %d text-only, %d with CSV; want 1 each", len(textOnly), len(both))
			}
			for tst := result.FSTest(0); tst < result.FSTestCount; tst++ {
				want := l.Tests[tst]
				got := textOnly[0].FS.Runs[0].Tests[tst]
				if !tst.IsIO() {
					if !textOnly[0].UnknownRate[tst] || both[0].UnknownRate[tst] {
						t.Errorf("%s: unknown %v without CSV, %v with; want true, false", tst.Name(), textOnly[0].UnknownRate[tst], both[0].UnknownRate[tst])
					}
					if g := both[0].FS.Runs[0].Tests[tst].RatePerSec; want.RateState == bonnie.CellKnown && g != want.Rate {
						t.Errorf("%s with CSV: %v, want %v", tst.Name(), g, want.Rate)
					}
					continue
				}
				if want.RateState != bonnie.CellKnown {
					continue
				}
				// Text rounds to 0.1m/0.1g: at most 0.05 GiB/s on 1.4g.
				if rel := math.Abs(got.RatePerSec-want.Rate) / want.Rate; rel > 0.04 {
					t.Errorf("%s: text %v vs CSV %v (%.1f%% apart)", tst.Name(), got.RatePerSec, want.Rate, rel*100)
				}
			}
			tb, err := Compare([]*Run{textOnly[0], both[0]})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			tb.WriteText(&buf)
			if !strings.Contains(buf.String(), "unknown") {
				t.Errorf("compare does not show the unknown file rates:\n%s", buf.String())
			}
		})
	}
}

// fsRun is an fs run with put_block at rates, one per repeat.
func fsRun(label string, short bool, rates ...float64) *Run {
	f := &result.FS{Kind: "fs", SchemaVersion: 1}
	for _, r := range rates {
		var run result.FSRun
		run.Tests[result.PutBlock] = result.FSTestResult{Test: result.PutBlock, Ran: true, RatePerSec: r, RateUnit: "KiB/s", TooShort: short}
		f.Runs = append(f.Runs, run)
	}
	return &Run{FS: f, Label: label}
}

// TestChangesFollowTheRule: compare's mark on a change is the rule's
// (internal/verdict), the holes of the old spread test each a case: a
// difference inside the larger spread but outside the smaller one, repeats
// on one side only, no repeats at all.
func TestChangesFollowTheRule(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want verdict.Outcome
		mark string
	}{
		{"inside the spread", []float64{100, 120}, []float64{105, 125}, verdict.Same, "~"},
		{"outside the spread", []float64{100, 102}, []float64{150, 151}, verdict.Differs, ""},
		// A steady A and a scattered B: 12.5 % apart, well outside A's
		// spread of 0, inside B's; Welch judges by both.
		{"tight against wide", []float64{100, 100, 100}, []float64{80, 120, 130, 120}, verdict.Same, "~"},
		// One side without repeats: the single figure takes the other
		// side's spread; 10 % inside A's is noise.
		{"repeats on one side only", []float64{100, 120, 80}, []float64{110}, verdict.Same, "~"},
		{"repeats on the other side only", []float64{110}, []float64{100, 120, 80}, verdict.Same, "~"},
		{"no repeats", []float64{100}, []float64{101}, verdict.CannotTell, "?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := Compare([]*Run{fsRun("a", false, tc.a...), fsRun("b", false, tc.b...)})
			if err != nil {
				t.Fatal(err)
			}
			c := tb.Rows[0].Cells[1]
			if c.Cmp.Outcome != tc.want || !c.HasChange || c.Cmp.Mark() != tc.mark {
				t.Fatalf("cell %+v, want outcome %d", c, tc.want)
			}
			var buf bytes.Buffer
			if err := tb.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), changeText(c)) || !strings.Contains(buf.String(), verdict.RuleRef) ||
				!strings.Contains(changeText(c), c.Cmp.PctText()) {
				t.Fatalf("text lacks the change %q or the rule's link:\n%s", changeText(c), buf.String())
			}
		})
	}
}

func TestCheckRegression(t *testing.T) {
	runs := func(rates ...float64) []*Run {
		var out []*Run
		for _, r := range rates {
			out = append(out, fsRun("#1", false, r))
		}
		return out
	}
	tests := []struct {
		name      string
		now       *Run
		baseline  []*Run
		pct       float64
		list      string // where the column goes: "regressions", "within noise", ...
		fell      int
		neverSeen bool
	}{
		{"15% below a steady baseline", fsRun("#1", false, 85), runs(100, 99, 101, 100), 10, "regressions", 1, false},
		{"within the threshold", fsRun("#1", false, 91), runs(100, 99, 101, 100), 10, "", 0, false},
		// One outlier of 1000 makes the baseline's spread 400: 15 % is
		// inside it, and so is a fall to zero.
		{"an outlier in the baseline", fsRun("#1", false, 85), runs(100, 99, 1000, 101, 100), 10, "too noisy", 1, false},
		{"one earlier run is too few", fsRun("#1", false, 53.3), runs(100), 20, "not judged", 1, false},
		// Two steady runs: df 1, but 50 % is far outside them.
		{"two earlier runs can tell", fsRun("#1", false, 50), runs(100, 101), 20, "regressions", 1, false},
		// Mean 100, s 15.8: 25 % down is within the noise (t 1.44, df 4),
		// 95 % down beyond it (t 5.5).
		{"a noisy baseline's spread", fsRun("#1", false, 75), runs(80, 90, 100, 110, 120), 20, "within noise", 1, false},
		{"beyond a noisy baseline's spread", fsRun("#1", false, 5), runs(80, 90, 100, 110, 120), 20, "regressions", 1, false},
		// s 31.6: even 95 % down is within it (t 2.74 < 2.78).
		{"a noisier baseline's spread", fsRun("#1", false, 5), runs(60, 80, 100, 120, 140), 20, "within noise", 1, false},
		{"rose beyond the threshold", fsRun("#1", false, 150), runs(100, 99, 101), 20, "rose", 0, false},
		{"short now: reported, not alarmed", fsRun("#1", true, 10), runs(100, 101, 99), 20, "low confidence", 1, false},
		// A steady baseline (no spread at all): only the threshold decides.
		{"exactly the threshold is no regression", fsRun("#1", false, 75), runs(100, 100, 100), 25, "", 0, false},
		{"just past the threshold", fsRun("#1", false, 74), runs(100, 100, 100), 25, "regressions", 1, false},
		// Baseline figures under 0.5 s count (as in clyde compare); only
		// a figure under 0.5 s now is never alarmed on.
		{"short baseline figures count", fsRun("#1", false, 10), []*Run{fsRun("#2", true, 100), fsRun("#3", true, 99), fsRun("#4", false, 101)}, 20, "regressions", 1, false},
		// An even count's centre is the mean of all four (107.75), not a
		// middle figure (100.5, or 101 for the upper one): 86 is 20.2 %
		// below the mean and only 14.4 % below the middle.
		{"even-sized baseline", fsRun("#1", false, 86), runs(101, 100, 101, 129), 20, "within noise", 1, false},
		{"short every time: never alarmed on", fsRun("#1", true, 10), []*Run{fsRun("#2", true, 100), fsRun("#3", true, 101)}, 20, "low confidence", 1, true},
		{"short now, measured before", fsRun("#1", true, 10), []*Run{fsRun("#2", false, 100), fsRun("#3", true, 101)}, 20, "low confidence", 1, false},
		{"a new history's first run", fsRun("#1", true, 10), nil, 20, "", 0, true},
		// The run's repeats against one earlier run's: the same test as
		// clyde compare of the two.
		{"repeats against one earlier run", fsRun("#1", false, 70, 71, 69), []*Run{fsRun("#2", false, 99, 100, 101)}, 20, "regressions", 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ck := CheckRegression(tc.now, tc.baseline, tc.pct)
			lists := map[string]int{"regressions": len(ck.Regressions), "within noise": len(ck.WithinNoise), "rose": len(ck.Rose),
				"too noisy": len(ck.TooNoisy), "low confidence": len(ck.LowConfidence), "not judged": len(ck.NotJudged)}
			for name, n := range lists {
				if want := map[bool]int{true: 1}[name == tc.list]; n != want {
					t.Fatalf("%s has %d, want %d: %+v", name, n, want, ck)
				}
			}
			if ck.Fell != tc.fell || len(ck.Columns) != 1 || (len(ck.NeverChecked) == 1) != tc.neverSeen || ck.Regressed() != (tc.list == "regressions") {
				t.Fatalf("check %+v; want %d fell, never checked %v", ck, tc.fell, tc.neverSeen)
			}
			s := ck.Summary()
			if strings.Contains(s, "\n") || !strings.Contains(s, fmt.Sprintf(": %d of 1 columns fell more than", tc.fell)) ||
				!strings.Contains(s, fmt.Sprintf("the mean of %d earlier comparable run", len(tc.baseline))) {
				t.Fatalf("summary %q", s)
			}
		})
	}
	// Every repeat of the earlier run is a figure of the baseline: 3+3,
	// as clyde compare of the two runs.
	rep := CheckRegression(fsRun("#1", false, 70, 71, 69), []*Run{fsRun("#2", false, 99, 100, 101)}, 20)
	if c := rep.Columns[0].Cmp; c.Ref.N != 3 || c.Cand.N != 3 || c.Ref.Mean != 100 {
		t.Fatalf("the baseline of one run of three repeats: %+v", c)
	}
	// The figures: 85 against a baseline of mean 100.
	ck := CheckRegression(fsRun("#1", false, 85), runs(100, 99, 101, 100), 10)
	if r := ck.Regressions[0]; r.Cmp.Ref.Mean != 100 || math.Abs(r.Cmp.ChangePct+15) > 1e-9 || r.Cmp.Ref.N != 4 || r.Cmp.Cand.N != 1 || r.BaselineRuns != 4 {
		t.Fatalf("85 vs mean 100: %+v", r)
	}
	if s := ck.Summary(); !strings.HasPrefix(s, "put_block -15.0% (85.0 vs 100 KiB/s, p<0.001") || !strings.Contains(s, " n=4+1)") {
		t.Fatalf("summary %q", s)
	}
}

// TestRegressionLine: a run where everything fell names every column, the
// ones the rule calls down worst first, then those within the noise, each
// marked, then the rise, the one the baseline is too noisy for, and the
// count: the throttled run against a noisy baseline.
func TestRegressionLine(t *testing.T) {
	mk := func(label string, rates map[result.FSTest]float64) *Run {
		f := &result.FS{Kind: "fs", SchemaVersion: 1, Runs: []result.FSRun{{}}}
		for tst, r := range rates {
			f.Runs[0].Tests[tst] = result.FSTestResult{Test: tst, Ran: true, RatePerSec: r, RateUnit: tst.RateUnit()}
		}
		return &Run{FS: f, Label: label}
	}
	// Baseline of five nights: put_block and get_block steady, put_char
	// and get_char noisy (a busy machine), seeks wildly so.
	nights := [][5]float64{
		result.PutBlock: {1000, 1010, 990, 1005, 995},
		result.GetBlock: {2000, 2020, 1980, 2010, 1990},
		result.PutChar:  {100, 60, 140, 80, 120},
		result.GetChar:  {200, 120, 280, 160, 240},
		result.Seeks:    {500, 50, 950, 100, 900},
		result.Rewrite:  {300, 303, 297, 301, 299},
	}
	var base []*Run
	for n := range 5 {
		rates := map[result.FSTest]float64{}
		for tst, v := range nights {
			if v[0] != 0 {
				rates[result.FSTest(tst)] = v[n]
			}
		}
		base = append(base, mk(fmt.Sprintf("#%d", 5-n), rates))
	}
	now := mk("#6", map[result.FSTest]float64{result.PutBlock: 130, result.GetBlock: 1000, result.PutChar: 50,
		result.GetChar: 20, result.Seeks: 100, result.Rewrite: 600})
	ck := CheckRegression(now, base, 20)
	s := ck.Summary()
	want := []string{"put_block -87.0% (130 vs 1000 KiB/s, p<0.001 n=5+1)", "; get_block -50.0% (1000 vs 2000 KiB/s, p<0.001 n=5+1)",
		"; also down more than 20% but within the noise: getc ~-90.0% (p=0.06", ", putc ~-50.0% (p=0.22 n=5+1)",
		"; up more than 20% (a rise can be a cache): rewrite +100.0% (p<0.001",
		"; the baseline is too noisy to judge seeks ~-80.0% (even a fall to zero", ": 5 of 6 columns fell more than 20% against the mean of 5 earlier"}
	last := -1
	for _, w := range want {
		i := strings.Index(s, w)
		if i < 0 || i < last {
			t.Fatalf("line lacks %q (or out of order):\n%s", w, s)
		}
		last = i
	}
	rec, err := json.MarshalIndent(ck.Record(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, dir+"regression-line.golden", append([]byte(s+"\n\n"), append(rec, '\n')...))
	// clyde history's line from the saved record: the rule's verdicts, and
	// every column within the noise that fell more than the threshold
	// named with its mark (getc and putc within the noise, seeks whose
	// baseline is too noisy), so that it too says how much fell.
	if got, want := VerdictLine(ck.Record()), "lower: put_block -87.0% (p<0.001 n=5+1), get_block -50.0% (p<0.001 n=5+1); "+
		"higher: rewrite +100.0% (p<0.001 n=5+1); within the noise: 3 (down more than 20%: putc ~-50.0% (p=0.22 n=5+1), "+
		"getc ~-90.0% (p=0.06 n=5+1), seeks ~-80.0% (p=0.44 n=5+1))"; got != want {
		t.Errorf("history's line\n%s\nwant\n%s", got, want)
	}
	// getc fell 90 %, but its baseline (mean 200, s 63) puts even that
	// within the noise (t 2.60 < 2.78): the "also down".
	if len(ck.Regressions) != 2 || ck.Regressions[0].Key != "put_block" || ck.Regressions[1].Key != "get_block" ||
		len(ck.WithinNoise) != 2 || ck.WithinNoise[0].Key != "getc" || ck.Fell != 5 || !ck.Regressed() {
		t.Fatalf("regressions %+v, within the noise %+v: want put_block, get_block, then getc, putc", ck.Regressions, ck.WithinNoise)
	}
}

func TestBadInput(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full, _ := os.ReadFile(dir + "bonnie-2.00a-lines.csv")
	first := strings.SplitN(string(full), "\n", 2)[0]
	tests := []struct {
		name, arg, want string
	}{
		{"unknown id without history", "12345", "no history"},
		{"neither", write("notes.txt", "hello\nworld\n"), "neither a clyde JSON result nor bonnie++ output"},
		{"empty file", write("empty", ""), "is empty"},
		{"only white space", write("blank", "\n  \n"), "is empty"},
		{"truncated JSON", write("t.json", `{"kind": "fs", "schema_version": 1, "runs": [`), "truncated JSON"},
		{"missing fields", write("short.csv", first[:strings.LastIndex(first, ",")]+"\n"), "49 fields"},
		{"missing fields inline", first[:200], "fields"},
		{"no such thing", "nosuchfile.json", "no such file"},
		{"directory", tmp, "directory"},
		{"bad latency", write("lat.csv", strings.Replace(first, "15818us", "15818xx", 1)), "latency"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.arg, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line containing %q", err, tc.want)
			}
		})
	}
	fsRun := load(t, "bonnie-2.00a-ext4.txt")[0]
	blk := &Run{Block: &result.Block{Kind: "block"}, Label: "b.json"}
	if _, err := Compare([]*Run{fsRun, blk}); err == nil || !strings.Contains(err.Error(), "cannot compare an fs run") {
		t.Fatalf("fs vs block: %v", err)
	}
}

func FuzzParseText(f *testing.F) {
	for _, n := range []string{"bonnie-1.96-ssd-840pro-vs-m4.txt", "bonnie-2.00a-ext4.txt", "bonnie-2.00a-ntfs3g.txt"} {
		b, err := os.ReadFile(dir + n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		reps, err := ParseText(strings.Split(s, "\n"))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for _, r := range reps {
			var buf bytes.Buffer
			if err := bonnie.WriteText(&buf, r.Config, r.Run); err != nil {
				t.Fatalf("a parsed report does not render: %v", err)
			}
		}
	})
}

// FuzzLoadBytes covers argument resolution's content sniffing: any bytes
// give runs or a one-line error, never a panic.
func FuzzLoadBytes(f *testing.F) {
	for _, n := range []string{"bonnie-2.00a-lines.csv", "bonnie-2.00a-btrfs.txt", "bonnie-1.96-ssd-840pro-vs-m4.txt"} {
		b, err := os.ReadFile(dir + n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"kind":"fs","schema_version":1,"runs":[{}]}`))
	f.Add([]byte(`{"kind":"block","schema_version":1,"jobs":[{"read":{"total_ios":1}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := LoadBytes("fuzz", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for _, r := range runs {
			_ = r.Figures()
			_ = r.Summary()
			_ = r.Params()
		}
		if len(runs) >= 2 {
			if tb, err := Compare(runs); err == nil {
				tb.WriteText(&bytes.Buffer{})
			}
		}
	})
}

func FuzzLoadArg(f *testing.F) {
	for _, s := range []string{"12", "#3", "1.98,2.00a,x,1,1,,,,,,,,,,,,,,,,,1,,,,,+++++,+++,+++++,+++,+++++,+++,1976,72,+++++,+++,+++++,+++,,,,,,,1377us,59us,286us,4528us,95us,1687us", "", "#", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		if strings.ContainsAny(arg, "/\\") || strings.HasPrefix(arg, ".") {
			return // do not read files from the machine
		}
		lookup := func(id int64) ([]byte, error) { return nil, os.ErrNotExist }
		if _, err := Load(arg, lookup); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}

// TestConcurrentJobsAreApart: the same small job beside two different large
// loads (two ORION points) is two figures, not two repeats of one.
func TestConcurrentJobsAreApart(t *testing.T) {
	small := result.BlockJobConfig{RW: "randread", BSBytes: 8 << 10, IODepth: 1, NumJobs: 1}
	large1 := result.BlockJobConfig{RW: "randread", BSBytes: 1 << 20, IODepth: 1, NumJobs: 1}
	large2 := large1
	large2.IODepth = 2
	dir := result.BlockDir{TotalIOs: 10, IOPS: 100}
	b := &result.Block{Jobs: []result.BlockJob{
		{Config: small, Read: dir}, {Config: large1, Read: dir},
		{Config: small, Read: dir}, {Config: large2, Read: dir},
	}, Groups: []result.BlockGroup{{GroupID: 0, Jobs: []int{0, 1}}, {GroupID: 1, Jobs: []int{2, 3, 99}}}}
	figs := blockFigures(b)
	for _, f := range figs {
		if len(f.Values) != 1 {
			t.Errorf("%s: %d values, want each point apart", f.Key, len(f.Values))
		}
	}
	if len(figs) != 8 {
		t.Errorf("%d figures, want 4 jobs x (iops, bw)", len(figs))
	}
}

// TestShortKeepsRate: a clyde result keeps the rate of a test under 0.5 s
// (putc ran 0.3 s in result/fs.json) as a known, short figure, through
// the table, its text, CSV and JSON forms and the history summary; a
// bonnie++ +++++ (no figure) stays too fast.
func TestShortKeepsRate(t *testing.T) {
	clyde, err := Load("../../testdata/result/fs.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	putc := clyde[0].FS.Runs[0].Tests[result.PutChar]
	if !putc.TooShort || putc.RatePerSec <= 0 {
		t.Fatalf("the fixture's putc is not a short test with a rate: %+v", putc)
	}
	imported := load(t, "bonnie-1.96-ssd-840pro-vs-m4.txt")[0] // getc is +++++
	tb, err := Compare([]*Run{clyde[0], imported})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]Row{}
	for _, r := range tb.Rows {
		byKey[r.Key] = r
	}
	c := byKey["putc"].Cells[0]
	if c.State != Known || !c.Short || c.Value != putc.RatePerSec {
		t.Fatalf("putc cell %+v, want known, short, %v", c, putc.RatePerSec)
	}
	if g := byKey["getc"].Cells[1]; g.State != TooFast {
		t.Fatalf("bonnie++'s +++++ getc is %+v, want too fast", g)
	}
	var text, csvOut, jsonOut bytes.Buffer
	if err := tb.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	tb.WriteCSV(&csvOut)
	tb.WriteJSON(&jsonOut)
	if !strings.Contains(text.String(), " 26.0"+ShortMark+" ") || !strings.Contains(text.String(), ShortNote) {
		t.Errorf("the text lacks the short putc figure or its note:\n%s", text.String())
	}
	wantCSV := "putc,KiB/s,true,A,fs.json,known," + strconv.FormatFloat(putc.RatePerSec, 'g', -1, 64) + ",0,1,true,,0,,"
	if !strings.Contains(csvOut.String(), wantCSV+"\n") {
		t.Errorf("the CSV lacks %q:\n%s", wantCSV, csvOut.String())
	}
	var doc struct {
		Rows []struct {
			Column string
			Cells  []struct {
				State string
				Value *float64
				Short bool
			}
		}
	}
	if err := json.Unmarshal(jsonOut.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Rows {
		if r.Column == "putc" && (r.Cells[0].Value == nil || *r.Cells[0].Value != putc.RatePerSec || !r.Cells[0].Short) {
			t.Errorf("JSON putc cell %+v", r.Cells[0])
		}
	}
	// All of a run's key figures short: the summary still has them.
	f := *clyde[0].FS
	f.Runs = append([]result.FSRun(nil), f.Runs...)
	for i := range f.Runs[0].Tests {
		f.Runs[0].Tests[i].TooShort = true
	}
	if s := (&Run{FS: &f}).Summary(); !strings.Contains(s, "put_block 26.0"+ShortMark+" MiB/s") || !strings.Contains(s, "seq_create") {
		t.Errorf("summary of an all-short run: %q", s)
	}
}

// TestDisplayUnit: one unit per column, chosen so both ends keep digits.
func TestDisplayUnit(t *testing.T) {
	tests := []struct {
		name, unit string
		vals       []float64
		want       string
		scale      float64
	}{
		{"slow KiB/s stays", "KiB/s", []float64{715, 2689}, "KiB/s", 1},
		{"fast KiB/s is MiB/s", "KiB/s", []float64{417854, 233683}, "MiB/s", 1.0 / 1024},
		{"bytes are MiB/s", "B/s", []float64{1}, "MiB/s", 1.0 / (1 << 20)},
		{"microseconds", "ns", []float64{38000, 27000}, "us", 1e-3},
		{"ms by the middle", "ns", []float64{735e3, 142e9}, "ms", 1e-6},
		{"seconds", "ns", []float64{2e9, 5e9}, "s", 1e-9},
		{"nanoseconds", "ns", []float64{200, 900}, "ns", 1},
		{"files/s", "files/s", []float64{25559}, "files/s", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, s := DisplayUnit(tc.unit, tc.vals)
			if u != tc.want || s != tc.scale {
				t.Fatalf("DisplayUnit(%s, %v) = %s, %v; want %s, %v", tc.unit, tc.vals, u, s, tc.want, tc.scale)
			}
		})
	}
}

func TestKeyFlagsAndName(t *testing.T) {
	tests := []struct {
		name, file, flags, runName string
	}{
		{"bonnie++ 1.96 text", "compare/bonnie-1.96-ssd-840pro-vs-m4.txt", "-s 2048 -n 256:4096:512:16", "geek.sc"},
		{"clyde JSON", "result/fs.json", "-s 2048 -n 16", "testbox"},
		{"block job", "block/result.json", "randrw 70%r 4k qd32 j2 --size 1024m --ioengine io_uring", "randrw"},
		{"block preset", "block/profile-cdm.json", "--profile cdm --size 1024m --ioengine io_uring --passes 2", "cdm"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := Load("../../testdata/"+tc.file, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := runs[0].KeyFlags(); got != tc.flags {
				t.Errorf("KeyFlags = %q, want %q", got, tc.flags)
			}
			if got := runs[0].Name(); got != tc.runName {
				t.Errorf("Name = %q, want %q", got, tc.runName)
			}
		})
	}
}

// TestResultWithOtherFormats: a file written with --output-format text,json
// (fio's normal,json: both in one file) is read for its JSON, whichever
// comes first; text around a JSON that does not decode is still refused.
func TestResultWithOtherFormats(t *testing.T) {
	js, err := os.ReadFile("../../testdata/block/profile-cdm.json")
	if err != nil {
		t.Fatal(err)
	}
	text := "------\nclyde: CrystalDiskMark's tests {Q=8}\n[Read]\n  SEQ 1MiB: 1805.697 MB/s\n"
	for name, data := range map[string]string{
		"json":       string(js),
		"text,json":  text + string(js),
		"json,text":  string(js) + "\n" + text,
		"text,json,": text + string(js) + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			runs, err := LoadBytes(name, []byte(data))
			if err != nil || len(runs) != 1 || runs[0].Block == nil || runs[0].Block.CDM == nil {
				t.Fatalf("LoadBytes: %v, %d runs", err, len(runs))
			}
		})
	}
	if _, err := LoadBytes("broken", []byte(text+"{\"kind\": \"block\",\n")); err == nil {
		t.Error("text and a cut JSON accepted")
	}
}

// TestTmpfsX3AgainstScipy is the oracle beside the tmpfs-x3 goldens: every
// row's p-value and both intervals, from the JSON's repeats, by scipy
// (Welch's ttest_ind and t.interval), where Debian's python3-scipy is.
func TestTmpfsX3AgainstScipy(t *testing.T) {
	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import scipy.stats").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no python3 with scipy: .ci/run installs python3-scipy")
		}
		clydetest.Skip(t, "no python3 with scipy (Debian: python3-scipy)")
	}
	tb, err := Compare(load(t, "../html/tmpfs-x3-a.json", "../html/tmpfs-x3-b.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2][]float64
	var rows []Row
	for _, r := range tb.Rows {
		if r.Cells[0].N == 3 && r.Cells[1].N == 3 {
			pairs, rows = append(pairs, [2][]float64{r.Cells[0].Values, r.Cells[1].Values}), append(rows, r)
		}
	}
	in, _ := json.Marshal(pairs)
	cmd := exec.Command(py, "-c", `
import json, sys
from scipy import stats
import numpy as np
out = []
for a, b in json.load(sys.stdin):
    a, b = np.array(a), np.array(b)
    ci = [float((stats.t.interval(0.95, 2, loc=s.mean(), scale=stats.sem(s))[1] - s.mean())) for s in (a, b)]
    out.append([float(stats.ttest_ind(a, b, equal_var=False).pvalue)] + ci)
json.dump(out, sys.stdout)
`)
	cmd.Stdin = bytes.NewReader(in)
	raw, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want [][3]float64
	if err := json.Unmarshal(raw, &want); err != nil || len(want) != len(rows) || len(rows) < 20 {
		t.Fatalf("scipy gave %d rows for %d (%v)", len(want), len(rows), err)
	}
	for i, r := range rows {
		got := [3]float64{r.Cells[1].Cmp.P, r.Cells[0].CI, r.Cells[1].CI}
		for k := range got {
			if math.Abs(got[k]-want[i][k]) > 1e-6*math.Abs(want[i][k]) {
				t.Errorf("%s: %v, scipy %v", r.Key, got, want[i])
			}
		}
	}
}
