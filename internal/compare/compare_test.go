package compare

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/bonnie"
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
			golden := dir + tc.name + ".golden"
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
		})
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

func TestRepeatsMarkNotSignificant(t *testing.T) {
	mk := func(rates ...float64) *Run {
		f := &result.FS{Kind: "fs", SchemaVersion: 1}
		for _, r := range rates {
			var run result.FSRun
			run.Tests[result.PutBlock] = result.FSTestResult{Test: result.PutBlock, Ran: true, RatePerSec: r, RateUnit: "KiB/s"}
			f.Runs = append(f.Runs, run)
		}
		return &Run{FS: f, Label: "x"}
	}
	tests := []struct {
		name   string
		a, b   []float64
		notSig bool
	}{
		{"inside the spread", []float64{100, 120}, []float64{105, 125}, true},
		{"outside the spread", []float64{100, 102}, []float64{150, 151}, false},
		{"no repeats", []float64{100}, []float64{101}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := Compare([]*Run{mk(tc.a...), mk(tc.b...)})
			if err != nil {
				t.Fatal(err)
			}
			c := tb.Rows[0].Cells[1]
			if c.NotSignificant != tc.notSig || !c.HasChange {
				t.Fatalf("cell %+v, want not significant = %v", c, tc.notSig)
			}
		})
	}
}

func TestCheckRegression(t *testing.T) {
	mk := func(rate float64, short bool) *Run {
		f := &result.FS{Kind: "fs", SchemaVersion: 1, Runs: []result.FSRun{{}}}
		f.Runs[0].Tests[result.PutBlock] = result.FSTestResult{Test: result.PutBlock, Ran: true, RatePerSec: rate,
			RateUnit: "KiB/s", TooShort: short}
		return &Run{FS: f, Label: "#1"}
	}
	runs := func(rates ...float64) []*Run {
		var out []*Run
		for _, r := range rates {
			out = append(out, mk(r, false))
		}
		return out
	}
	tests := []struct {
		name     string
		now      *Run
		baseline []*Run
		pct      float64
		regress  bool
		lowConf  bool
		checked  int
	}{
		{"15% below a steady median", mk(85, false), runs(100, 99, 1000, 101, 100), 10, true, false, 1},
		{"within the threshold", mk(91, false), runs(100, 99, 1000, 101, 100), 10, false, false, 1},
		// Median 100, MAD 10 (sigma ~15): 15% down is ordinary for it.
		{"15% below a spread-out median", mk(85, false), runs(100, 90, 1000, 110, 95), 10, false, false, 1},
		// 46.7% below one noisy run: the false alarm. One run is no baseline.
		{"one earlier run is too few", mk(53.3, false), runs(100), 20, false, false, 0},
		{"two earlier runs are too few", mk(50, false), runs(100, 100), 20, false, false, 0},
		{"three are enough", mk(50, false), runs(100, 100, 100), 20, true, false, 1},
		// Median 100, MAD 20 (sigma ~30): 25% down is within 3 sigma.
		{"a noisy baseline's spread", mk(75, false), runs(60, 80, 100, 120, 140), 20, false, false, 1},
		{"beyond a noisy baseline's spread", mk(5, false), runs(60, 80, 100, 120, 140), 20, true, false, 1},
		{"short now: reported, not alarmed", mk(10, true), runs(100, 100, 100), 20, false, true, 0},
		// The boundaries, each on one side of its rule. Median 100, MAD 10:
		// 3 x 1.4826 x 10 = 44.48 is the spread a drop must exceed.
		{"40 down is within 3 sigma", mk(60, false), runs(90, 100, 110), 10, false, false, 1},
		{"44 down is within 3 sigma", mk(56, false), runs(90, 100, 110), 10, false, false, 1},
		{"45 down is beyond 3 sigma", mk(55, false), runs(90, 100, 110), 10, true, false, 1},
		// A steady baseline (MAD 0): only the threshold decides.
		{"exactly the threshold is no regression", mk(75, false), runs(100, 100, 100), 25, false, false, 1},
		{"just past the threshold", mk(74, false), runs(100, 100, 100), 25, true, false, 1},
		{"short baseline figures do not count", mk(10, false), []*Run{mk(100, true), mk(100, true), mk(100, false)}, 20, false, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ck := CheckRegression(tc.now, tc.baseline, tc.pct)
			if (len(ck.Regressions) > 0) != tc.regress || (len(ck.LowConfidence) > 0) != tc.lowConf || ck.Checked != tc.checked || ck.Columns != 1 {
				t.Fatalf("check %+v; want regression %v, low confidence %v, %d of 1 checked", ck, tc.regress, tc.lowConf, tc.checked)
			}
			s := ck.Summary()
			if strings.Contains(s, "\n") || !strings.Contains(s, fmt.Sprintf("%d of 1 columns checked", tc.checked)) ||
				!strings.Contains(s, fmt.Sprintf("median of %d earlier comparable run", len(tc.baseline))) {
				t.Fatalf("summary %q", s)
			}
		})
	}
	ck := CheckRegression(mk(85, false), runs(100, 99, 1000, 101, 100), 10)
	if r := ck.Regressions[0]; r.Median != 100 || math.Abs(r.DropPct-15) > 1e-9 || r.MAD != 1 {
		t.Fatalf("85 vs median 100: %+v", r)
	}
	// A column short now and in MinBaseline earlier runs is never judged at
	// these sizes: named, so the cron user hears of it.
	short := []*Run{mk(100, true), mk(100, true), mk(100, true)}
	if ck := CheckRegression(mk(10, true), short, 20); len(ck.NeverChecked) != 1 || ck.NeverChecked[0] != "put_block" {
		t.Errorf("short every time: never checked %v, want put_block", ck.NeverChecked)
	}
	for name, c := range map[string]Check{
		"measured now":           CheckRegression(mk(10, false), short, 20),
		"short in two runs only": CheckRegression(mk(10, true), short[:2], 20),
		"measured before":        CheckRegression(mk(10, true), runs(100, 100, 100), 20),
	} {
		if len(c.NeverChecked) != 0 {
			t.Errorf("%s: never checked %v, want none", name, c.NeverChecked)
		}
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
	wantCSV := "putc,KiB/s,true,A,fs.json,known," + strconv.FormatFloat(putc.RatePerSec, 'g', -1, 64) + ",0,1,true,"
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
