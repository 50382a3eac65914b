package blockreport

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/fiojob"
	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// paths lists every leaf of a JSON document as a path: objects by key,
// arrays as [] (any index).
func paths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			paths(e, prefix+"."+k, out)
		}
	case []any:
		for _, e := range x {
			paths(e, prefix+"[]", out)
		}
	default:
		out[prefix] = true
	}
}

func pathSet(t *testing.T, data []byte) map[string]bool {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	paths(v, "", out)
	return out
}

// seededRun is a short real psync randread job on a file in a temporary
// directory, like the reference fio run.
func seededRun(t *testing.T) *result.Block {
	t.Helper()
	j := blockbench.NewJob(filepath.Join(t.TempDir(), "target"))
	j.RW, j.IOEngine, j.Size, j.Runtime, j.Seed = blockbench.RandRead, blockbench.EnginePsync, 1<<20, 300*time.Millisecond, 42
	j.CommandLine, j.Shape = []string{"clyde", "block"}, fiojob.Shape // fio's fields, as the CLI runs it
	res, err := blockbench.Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFioKeys fails on every path of fio 3.33's JSON (a psync randread job)
// that clyde's JSON lacks: what a fio reader may look up.
func TestFioKeys(t *testing.T) {
	ref, err := os.ReadFile(filepath.Join(dir, "fio-3.33-psync-randread-tmpfs.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := pathSet(t, ref)
	golden, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, res := range map[string]func(t *testing.T) []byte{
		"golden randrw": func(*testing.T) []byte { return golden },
		"seeded psync randread run": func(t *testing.T) []byte {
			var b bytes.Buffer
			if err := JSON(&b, seededRun(t)); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		},
	} {
		t.Run(name, func(t *testing.T) {
			got := pathSet(t, res(t))
			var missing []string
			for p := range want {
				if !got[p] {
					missing = append(missing, p)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%d of fio 3.33's %d paths missing:\n%s", len(missing), len(want), strings.Join(missing, "\n"))
			}
		})
	}
}

// TestJSONPlusBins checks json+'s bins against the histogram they came
// from: every I/O in a bin, every key a fio bucket midpoint.
func TestJSONPlusBins(t *testing.T) {
	res := decodeNamed(t, "result.json")
	var b bytes.Buffer
	if err := JSONPlus(&b, res); err != nil {
		t.Fatal(err)
	}
	plus, err := result.DecodeBlock(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	job := plus.Jobs[0]
	for name, d := range map[string]result.BlockDir{"read": job.Read, "write": job.Write} {
		if len(d.Lat.Bins) != 0 || len(d.Slat.Bins) != 0 {
			t.Errorf("%s: bins on lat_ns or slat_ns, which have no percentiles", name)
		}
		var n int64
		for _, bin := range d.Clat.Bins {
			n += bin.Count
			if v := latency.FioPlatValue(latency.FioPlatIndex(bin.ValueNs)); v != bin.ValueNs {
				t.Errorf("%s: bin %d is not a fio bucket midpoint (%d)", name, bin.ValueNs, v)
			}
		}
		if n != d.Clat.N || n == 0 {
			t.Errorf("%s: bins hold %d I/Os, clat_ns.N is %d", name, n, d.Clat.N)
		}
	}
	if len(res.Jobs[0].Read.Clat.Bins) != 0 {
		t.Error("JSONPlus changed the result it was given")
	}
}

func decodeNamed(t *testing.T, name string) *result.Block {
	t.Helper()
	res, err := decodeFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFioJSONPlusClat2CSV runs fio's own fio_jsonplus_clat2csv on clyde's
// json+: it must read it (and --validate it), and the percentiles its CSV
// gives must be within one fio bucket of clyde's.
func TestFioJSONPlusClat2CSV(t *testing.T) {
	tool, err := exec.LookPath("fio_jsonplus_clat2csv")
	if err != nil {
		clydetest.Skip(t, "needs fio_jsonplus_clat2csv (Debian's fio package): not in PATH")
	}
	work := t.TempDir()
	res := decodeNamed(t, "result.json")
	var b bytes.Buffer
	if err := JSONPlus(&b, res); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(work, "clyde.json")
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "clat.csv")
	for _, args := range [][]string{{in, out}, {in, out, "--validate"}} {
		cmd := exec.Command(tool, args...)
		cmd.Dir = work
		if msg, err := cmd.CombinedOutput(); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && strings.Contains(string(msg), "No module named") {
				clydetest.Skipf(t, "fio_jsonplus_clat2csv cannot run here: %s", msg)
			}
			t.Fatalf("%s %v: %v\n%s", tool, args, err, msg)
		}
	}
	rows := readCSV(t, filepath.Join(work, "clat_job0.csv"))
	job := res.Jobs[0]
	for _, d := range []struct {
		name string
		dir  result.BlockDir
	}{{"read", job.Read}, {"write", job.Write}} {
		col := colIndex(t, rows[0], d.name+"_clat_ns_percentile")
		for _, p := range d.dir.Clat.Percentile {
			// The first bucket at or past p of the I/Os is fio's answer.
			var fioNs int64 = -1
			for _, r := range rows[1:] {
				if strings.TrimSpace(r[col]) == "" {
					continue
				}
				frac, err := strconv.ParseFloat(strings.TrimSpace(r[col]), 64)
				if err != nil {
					t.Fatal(err)
				}
				if frac >= p.P/100-1e-12 {
					fioNs, _ = strconv.ParseInt(strings.TrimSpace(r[0]), 10, 64)
					break
				}
			}
			got, want := latency.FioPlatIndex(fioNs), latency.FioPlatIndex(p.Value)
			if fioNs < 0 || got-want > 1 || want-got > 1 {
				t.Errorf("%s p%g: fio_jsonplus_clat2csv says %d ns (bucket %d), clyde %d ns (bucket %d)",
					d.name, p.P, fioNs, got, p.Value, want)
			}
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rec)
	}
	if len(rows) < 2 {
		t.Fatalf("%s has %d rows", path, len(rows))
	}
	return rows
}

func colIndex(t *testing.T, header []string, name string) int {
	t.Helper()
	for i, h := range header {
		if strings.TrimSpace(h) == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, header)
	return 0
}

func TestParseFormats(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "json", want: []string{"json"}},
		{in: "normal,json", want: []string{"normal", "json"}},
		{in: "json+", want: []string{"json+"}},
		{in: "text, csv", want: []string{"text", "csv"}},
		{in: "terse", err: "semicolon"},
		{in: "xml", err: "unknown format"},
		{in: "json,json", err: "twice"},
		{in: "normal,text", err: "twice"},
		{in: "json,", err: "unknown format"},
		{in: "", err: "unknown format"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseFormats(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !result.IsUsage(err) {
					t.Fatalf("ParseFormats(%q) = %v, %v; want a usage error with %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("ParseFormats(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func FuzzParseFormats(f *testing.F) {
	for _, s := range []string{"json", "normal,json", "json+,csv", ",", "terse"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFormats(s)
		if err != nil {
			if !result.IsUsage(err) {
				t.Fatalf("%q: %v is not a usage error", s, err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatalf("%q: no formats and no error", s)
		}
		var b bytes.Buffer
		if err := WriteAll(&b, got, decodeFuzzResult(t)); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
	})
}

func decodeFuzzResult(t *testing.T) *result.Block {
	return decodeNamed(t, "result.json")
}
