package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/result"
)

// smallCopy is a clyde copy of two small sets in dir.
func smallCopy(dir string, extra ...string) []string {
	return append([]string{"copy", "-d", dir, "--set", "64k:2,4k:3", "--seed", "9"}, extra...)
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("%s holds %d entries, want none (first %s)", dir, len(entries), entries[0].Name())
	}
}

func TestCopyBadInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	out := t.TempDir()
	regular := filepath.Join(out, "regular.json")
	os.WriteFile(regular, nil, 0o644)
	link := filepath.Join(out, "link.json")
	os.Symlink(regular, link)
	tests := []struct {
		name string
		args []string
		flag string // the flag the one-line error names
	}{
		{"zero size", []string{"--set", "0:10"}, "--set"},
		{"zero count", []string{"--set", "4k:0"}, "--set"},
		{"bad unit", []string{"--set", "4q:10"}, "--set"},
		{"no count", []string{"--set", "4k"}, "--set"},
		{"unknown method", []string{"--method", "rsync"}, "--method"},
		{"zero buffer", []string{"--bs", "0"}, "--bs"},
		{"buffer too big", []string{"--bs", "1g"}, "--bs"},
		{"unknown data", []string{"--buffer", "ones"}, "--buffer"},
		{"two sync modes", []string{"--no-fsync", "--syncfs"}, "--syncfs"},
		{"zero dirs", []string{"--dirs", "0"}, "--dirs"},
		{"bad seed", []string{"--seed", "x"}, "--seed"},
		{"--to is -d", []string{"--to", dir}, "--to"},
		{"missing --to", []string{"--to", filepath.Join(dir, "nope")}, "--to"},
		{"force without cleanup", []string{"--force"}, "--force"},
		{"json in a missing directory", []string{"--json", filepath.Join(out, "no", "r.json")}, "--json"},
		{"json is a directory", []string{"--json", out}, "--json"},
		{"stray argument", []string{"mnt"}, "mnt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runClyde(t, smallCopy(dir, append(tc.args, "--no-history")...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
			}
			if line := oneLine(t, stderr); !strings.HasPrefix(line, "clyde: "+tc.flag+": ") {
				t.Fatalf("error %q does not name %s", line, tc.flag)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			assertEmpty(t, dir)
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the symlink was touched: %v, %v", fi, err)
			}
		})
	}
}

// TestCopyRunAndReport runs clyde copy for real: -q puts CSV on stdout and
// the table on stderr, --json holds the result, clyde report prints the
// same table the run printed, and the JSON file replaces an earlier one.
func TestCopyRunAndReport(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(js, []byte("old"), 0o644)
	before, _ := os.Stat(js)
	code, stdout, stderr := runClyde(t, smallCopy(dir, "-q", "--no-history", "--json", js)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	assertEmpty(t, dir)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "target,method,set,") ||
		!strings.HasPrefix(lines[1], dir+",readwrite,64Kx2,65536,2,131072,") || !strings.HasSuffix(lines[2], ",true,true,false,ok") {
		t.Fatalf("CSV on stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "Copy 64Kx2") || !strings.Contains(stderr, "MB/s (10^6 bytes/s)") {
		t.Fatalf("no table on stderr:\n%s", stderr)
	}
	after, err := os.Stat(js)
	if err != nil || os.SameFile(before, after) {
		t.Fatalf("--json: %v; want the old file replaced by a new one", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(js), ".*tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	data, _ := os.ReadFile(js)
	res, err := result.DecodeCopy(data)
	if err != nil || len(res.Results) != 2 || res.Provenance.Version != version || res.Config.Seed != 9 {
		t.Fatalf("JSON: %v, %+v", err, res)
	}
	code, report, stderr2 := runClyde(t, "report", js)
	if code != 0 || report != stderr {
		t.Fatalf("clyde report (exit %d, %s) differs from the run's table:\n%s\nrun:\n%s", code, stderr2, report, stderr)
	}
	code, csv, _ := runClyde(t, "report", js, "--format", "csv")
	if code != 0 || csv != stdout {
		t.Fatalf("clyde report --format csv differs from the run's CSV:\n%s", csv)
	}
}

// TestCopyKeep is clyde copy's after-run step: the history lists the run,
// the Prometheus textfile carries the JSON's figures, compare puts two runs
// side by side, and --check-regression exits 3 after five runs ten times
// faster.
func TestCopyKeep(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "h.db")
	prom := filepath.Join(t.TempDir(), "clyde.prom")
	js := filepath.Join(t.TempDir(), "a.json")
	if code, _, stderr := runClyde(t, smallCopy(dir, "--db", db, "--prom-textfile", prom, "--json", js)...); code != 0 {
		t.Fatalf("first run: exit %d, %s", code, stderr)
	}
	data, _ := os.ReadFile(js)
	res, err := result.DecodeCopy(data)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("prometheus", func(t *testing.T) {
		bw := parseTextfile(t, prom)["clyde_copy_bandwidth_bytes_per_second"]
		if bw == nil || len(bw.Metric) != 2 {
			t.Fatalf("clyde_copy_bandwidth_bytes_per_second: %v", bw)
		}
		for _, m := range bw.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			set := strings.TrimPrefix(labels["test"], "readwrite ")
			f := res.Figure(set, "readwrite")
			if f == nil || labels["dir"] != dir || labels["host"] == "" {
				t.Fatalf("labels %v", labels)
			}
			if got, want := m.GetGauge().GetValue(), f.MBPerSec*1e6; got != want {
				t.Errorf("%s: textfile %v bytes/s, JSON %v", set, got, want)
			}
		}
	})

	t.Run("history and compare", func(t *testing.T) {
		js2 := filepath.Join(t.TempDir(), "b.json")
		if code, _, stderr := runClyde(t, smallCopy(dir, "--db", db, "--json", js2)...); code != 0 {
			t.Fatalf("second run: exit %d, %s", code, stderr)
		}
		code, out, stderr := runClyde(t, "history", "--db", db)
		if code != 0 || strings.Count(out, " copy ") != 2 || !strings.Contains(out, "readwrite 64Kx2 ") {
			t.Fatalf("history: exit %d, want two copy runs listed:\n%s%s", code, out, stderr)
		}
		code, out, stderr = runClyde(t, "compare", js, js2)
		if code != 0 {
			t.Fatalf("compare: exit %d, %s", code, stderr)
		}
		for _, want := range []string{"Copy 64Kx2", "Copy 4Kx3", "A " + dir + "  readwrite", "B " + dir + "  readwrite", "vs A"} {
			if !strings.Contains(out, want) {
				t.Errorf("compare output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("regression", func(t *testing.T) {
		store, err := history.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		base, err := store.Query(context.Background(), history.Filter{WithJSON: true})
		if err != nil || len(base) == 0 {
			t.Fatalf("history: %d entries, %v", len(base), err)
		}
		fast, err := result.DecodeCopy(base[0].JSON)
		if err != nil {
			t.Fatal(err)
		}
		for i := range fast.Results {
			fast.Results[i].MBPerSec *= 10
			fast.Results[i].FilesPerSec *= 10
		}
		data, _ := json.Marshal(fast)
		saveCopies(t, store, base[0], data, 5)
		code, _, stderr := runClyde(t, smallCopy(dir, "--db", db, "--check-regression", "20")...)
		if code != exitRegression {
			t.Fatalf("after five 10x faster runs: exit %d, want %d; stderr %s", code, exitRegression, stderr)
		}
		if line := oneLine(t, stderr); !strings.Contains(line, "regression found") || !strings.Contains(line, "MB/s") {
			t.Fatalf("summary %q", line)
		}
	})
}

func TestCopyCleanup(t *testing.T) {
	dir, to := t.TempDir(), t.TempDir()
	host, _ := os.Hostname()
	left := filepath.Join(to, "clyde.999999999.deadbeef")
	os.Mkdir(left, 0o700)
	os.WriteFile(filepath.Join(left, "f"), []byte("x"), 0o600)
	marker := fmt.Sprintf(`{"tool":"clyde","pid":999999999,"host":%q,"start":"2026-01-01T00:00:00Z"}`, host)
	os.WriteFile(filepath.Join(left, ".clyde-run"), []byte(marker), 0o600)
	code, out, stderr := runClyde(t, "copy", "--cleanup", "-d", dir, "--to", to)
	if code != 0 || !strings.Contains(out, "nothing to clean up in "+dir) || !strings.Contains(out, "removed "+left) {
		t.Fatalf("cleanup: exit %d, %q, %q", code, out, stderr)
	}
	assertEmpty(t, to)
}
