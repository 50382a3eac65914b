package fsreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/fsreport")

// sampleResult is testdata/result/fs.json, the result the goldens print.
func sampleResult(t *testing.T) *result.FS {
	t.Helper()
	data, err := os.ReadFile("../../testdata/result/fs.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.DecodeFS(data)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGoldens(t *testing.T) {
	res := sampleResult(t)
	noJournal := *res
	noJournal.Provenance.Filesystem.NoJournal = true
	cases := []struct {
		name string
		res  *result.FS
		opts Options
	}{
		{"fs.txt", res, Options{}},
		{"fs-csv-only.txt", res, Options{CSVOnly: true}},
		{"fs-percentiles.txt", res, Options{Percentiles: true}},
		{"fs-no-journal.txt", &noJournal, Options{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := Write(&got, &got, tc.res, tc.opts); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("../../testdata/fsreport", tc.name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (rerun with -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s differs from the golden file (rerun with -update if intended):\n%s", tc.name, got.String())
			}
		})
	}
}

// TestTextAndCSVApart: -q sends the tables to one writer and the CSV line
// alone to the other.
func TestTextAndCSVApart(t *testing.T) {
	res := sampleResult(t)
	var text, csv bytes.Buffer
	if err := Write(&text, &csv, res, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(csv.Bytes(), []byte("\n")); n != len(res.Runs) || !bytes.HasPrefix(csv.Bytes(), []byte("1.98,")) {
		t.Errorf("csv writer got %q, want one CSV line per run", csv.String())
	}
	if bytes.Contains(text.Bytes(), []byte("1.98,")) || !bytes.Contains(text.Bytes(), []byte("Sequential Output")) {
		t.Errorf("text writer got %q, want the tables without the CSV line", text.String())
	}
}

// The no-journal note follows the first run with file tests, once however
// many runs there are, and not at all without file tests.
func TestNoJournalNote(t *testing.T) {
	res := sampleResult(t)
	res.Provenance.Filesystem.NoJournal = true
	noFiles := res.Runs[0]
	for i := result.SeqCreate; i < result.FSTestCount; i++ {
		noFiles.Tests[i].Ran = false
	}
	for _, tc := range []struct {
		name string
		runs []result.FSRun
		want int
	}{
		{"three runs", []result.FSRun{res.Runs[0], res.Runs[0], res.Runs[0]}, 1},
		{"no file tests", []result.FSRun{noFiles}, 0},
		{"file tests in the second run", []result.FSRun{noFiles, res.Runs[0]}, 1},
	} {
		r := *res
		r.Runs = tc.runs
		var text, csv bytes.Buffer
		if err := Write(&text, &csv, &r, Options{}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(text.String(), "has no journal"); got != tc.want {
			t.Errorf("%s: the note printed %d times, want %d:\n%s", tc.name, got, tc.want, text.String())
		}
		if strings.Contains(csv.String(), "journal") {
			t.Errorf("%s: the note is in the CSV", tc.name)
		}
	}
}

// TestFileRatesFromFilesAndTime is the oracle beside the goldens: a run
// whose six file tests each made, read or removed their files in a time of
// their own, and the rates the CSV line and the text table print are the
// files over the seconds, computed here from bonnie++'s definition (files/s
// truncated to whole, as its (int) cast does; CSV fields 26 to 36 as
// bon_csv2txt reads them), not recorded.
func TestFileRatesFromFilesAndTime(t *testing.T) {
	res := sampleResult(t)
	const files = 16 * 1024 // -n 16
	secs := map[result.FSTest]float64{
		result.SeqCreate: 2.0, result.SeqStat: 0.7, result.SeqDelete: 1.3,
		result.RandCreate: 3.0, result.RandStat: 0.9, result.RandDelete: 1.1,
	}
	run := &res.Runs[0]
	var want []string
	for test := result.SeqCreate; test < result.FSTestCount; test++ {
		tr := &run.Tests[test]
		tr.Ran, tr.Ops, tr.ElapsedNs, tr.CPUKnown = true, files, int64(secs[test]*1e9), false
		tr.Finish()
		want = append(want, strconv.Itoa(int(float64(files)/secs[test])))
	}
	var text, csv bytes.Buffer
	if err := Write(&text, &csv, res, Options{}); err != nil {
		t.Fatal(err)
	}
	f := strings.Split(strings.TrimSpace(csv.String()), ",")
	if len(f) != 50 {
		t.Fatalf("CSV line of %d fields: %s", len(f), csv.String())
	}
	var got []string
	for i := 26; i <= 36; i += 2 {
		got = append(got, f[i])
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CSV file rates %v, want files/s %v (seq create, stat, delete, random create, stat, delete)", got, want)
	}
	// The text table's file row: the count, then each test's rate and an
	// empty %CP.
	var row string
	for _, l := range strings.Split(text.String(), "\n") {
		if fields := strings.Fields(l); len(fields) > 0 && fields[0] == "16" {
			row = l
		}
	}
	if fields := strings.Fields(row); strings.Join(fields[1:], " ") != strings.Join(want, " ") {
		t.Errorf("text file row %q, want the rates %v", row, want)
	}
}

// The cache note (result.FS.CacheNote: read phases a page cache served)
// follows the tables once however many runs there are, never in the CSV.
func TestCacheNote(t *testing.T) {
	res := sampleResult(t)
	res.CacheNote = "the read phases (get_block) were not cold: /dev/loop3 reads its backing file /dev/shm/img from tmpfs, which keeps its files in memory; their figures are memory's, not the drive's"
	res.Runs = []result.FSRun{res.Runs[0], res.Runs[0]}
	var text, csv bytes.Buffer
	if err := Write(&text, &csv, res, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(text.String(), "Note: "+res.CacheNote+".\n"); got != 1 {
		t.Errorf("the note printed %d times, want once:\n%s", got, text.String())
	}
	if strings.Contains(csv.String(), "loop3") {
		t.Error("the note is in the CSV")
	}
}
