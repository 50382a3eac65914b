package fsreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/fsreport")

func TestGoldens(t *testing.T) {
	data, err := os.ReadFile("../../testdata/result/fs.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.DecodeFS(data)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts Options
	}{
		{"fs.txt", Options{}},
		{"fs-csv-only.txt", Options{CSVOnly: true}},
		{"fs-percentiles.txt", Options{Percentiles: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := Write(&got, &got, res, tc.opts); err != nil {
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
	data, err := os.ReadFile("../../testdata/result/fs.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.DecodeFS(data)
	if err != nil {
		t.Fatal(err)
	}
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
