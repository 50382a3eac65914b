package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/result"
)

// smallBlock is a one-second clyde block job on a file of its own: a
// random read/write mix, so both directions have figures.
func smallBlock(file string, extra ...string) []string {
	return append([]string{"block", "--filename", file, "--size", "8m", "--bs", "4k", "--rw", "randrw",
		"--runtime", "1", "--output-format", "json"}, extra...)
}

// TestBlockKeep runs clyde block's after-run step for real: the history
// lists the run, the Prometheus textfile parses and carries the JSON's
// figures, compare puts two runs side by side, and --check-regression exits
// 3 once five comparable runs ten times faster are in the history.
func TestBlockKeep(t *testing.T) {
	file := filepath.Join(t.TempDir(), "target")
	db := filepath.Join(t.TempDir(), "h.db")
	prom := filepath.Join(t.TempDir(), "clyde.prom")
	code, first, stderr := runClyde(t, smallBlock(file, "--db", db, "--prom-textfile", prom)...)
	if code != 0 {
		t.Fatalf("first run: exit %d, %s", code, stderr)
	}
	var res result.Block
	if err := json.Unmarshal([]byte(first), &res); err != nil || len(res.Jobs) != 1 {
		t.Fatalf("first run's JSON: %v, %d jobs", err, len(res.Jobs))
	}

	t.Run("prometheus", func(t *testing.T) {
		families := parseTextfile(t, prom)
		iops := families["clyde_block_iops"]
		if iops == nil {
			t.Fatalf("no clyde_block_iops in %v", families)
		}
		want := map[string]float64{"randrw read": res.Jobs[0].Read.IOPS, "randrw write": res.Jobs[0].Write.IOPS}
		for _, m := range iops.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			w, ok := want[labels["test"]]
			if !ok || labels["host"] == "" || labels["device"] != file {
				t.Errorf("unexpected labels %v", labels)
				continue
			}
			if got := m.GetGauge().GetValue(); got != w || got <= 0 {
				t.Errorf("%s: textfile says %v IOPS, JSON %v", labels["test"], got, w)
			}
			delete(want, labels["test"])
		}
		if len(want) != 0 {
			t.Errorf("no clyde_block_iops for %v", want)
		}
	})

	t.Run("history and compare", func(t *testing.T) {
		code, second, stderr := runClyde(t, smallBlock(file, "--db", db)...)
		if code != 0 {
			t.Fatalf("second run: exit %d, %s", code, stderr)
		}
		code, out, stderr := runClyde(t, "history", "--db", db)
		if code != 0 || strings.Count(out, " block ") != 2 {
			t.Fatalf("history: exit %d, want two block runs listed:\n%s%s", code, out, stderr)
		}
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
		os.WriteFile(a, []byte(first), 0o644)
		os.WriteFile(b, []byte(second), 0o644)
		code, out, stderr = runClyde(t, "compare", a, b)
		if code != 0 {
			t.Fatalf("compare: exit %d, %s", code, stderr)
		}
		for _, row := range []string{"read iops", "write iops", "read p99 latency"} {
			if !strings.Contains(out, row) {
				t.Errorf("compare output lacks %q:\n%s", row, out)
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
		var fast result.Block
		if err := json.Unmarshal(base[0].JSON, &fast); err != nil {
			t.Fatal(err)
		}
		for i := range fast.Jobs {
			for _, d := range []*result.BlockDir{&fast.Jobs[i].Read, &fast.Jobs[i].Write} {
				d.IOPS *= 10
				d.BWBytes *= 10
				d.BW *= 10
			}
		}
		data, _ := json.Marshal(fast)
		saveCopies(t, store, base[0], data, 5)
		code, _, stderr := runClyde(t, smallBlock(file, "--db", db, "--check-regression", "20")...)
		if code != exitRegression {
			t.Fatalf("after five 10x faster runs: exit %d, want %d; stderr %s", code, exitRegression, stderr)
		}
		if line := oneLine(t, stderr); !strings.Contains(line, "regression found") {
			t.Fatalf("summary %q", line)
		}
	})
}

// TestCDMRunsMeetInTheHistory: two cdm runs on one directory, named once
// relatively and once through a symlink, are one target in the history:
// the second finds the first as a comparable run, and history --dir lists
// both under either name. cdm makes its file in a new private directory
// each run, which the history took for the target before.
func TestCDMRunsMeetInTheHistory(t *testing.T) {
	parent := t.TempDir()
	if err := os.Mkdir(filepath.Join(parent, "mnt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mnt", filepath.Join(parent, "link")); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "h.db")
	t.Chdir(parent)
	cdm := func(dir string) string {
		t.Helper()
		code, _, stderr := runClyde(t, "block", "--filename", dir, "--profile", "cdm", "--cdm-preset", "demo", "--buffered",
			"--size", "4m", "--runtime", "100ms", "--interval", "0", "--passes", "1", "--db", db, "--check-regression", "20",
			"--output-format", "json")
		if code != 0 {
			t.Fatalf("cdm on %s: exit %d, %s", dir, code, stderr)
		}
		return stderr
	}
	cdm("mnt")
	if second := cdm("link"); !strings.Contains(second, "the mean of 1 earlier comparable run (") {
		t.Errorf("the second run did not find the first: %s", second)
	}
	for _, dir := range []string{"mnt", "link", filepath.Join(parent, "mnt"), "./mnt/"} {
		code, out, stderr := runClyde(t, "history", "--db", db, "--dir", dir)
		if code != 0 || strings.Count(out, " block ") != 2 {
			t.Errorf("history --dir %s: exit %d, want both runs:\n%s%s", dir, code, out, stderr)
		}
	}
}

// TestCDMOneNumberEverywhere: one CrystalDiskMark run says the same number
// for each test in every output: its text (CDM's MB/s), the figures compare,
// the page and the regression check use, the history's summary and the
// Prometheus textfile; and that number is the best of the passes, as
// CrystalDiskMark keeps it. These showed the passes' average in MiB/s under
// fio's job names before.
func TestCDMOneNumberEverywhere(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	file, db, prom := filepath.Join(out, "cdm.txt"), filepath.Join(out, "h.db"), filepath.Join(out, "cdm.prom")
	code, _, stderr := runClyde(t, "block", "--filename", dir, "--profile", "cdm", "--cdm-preset", "demo", "--buffered",
		"--test-data", "both", "--size", "4m", "--runtime", "100ms", "--interval", "0", "--passes", "3",
		"--output-format", "text,json", "--output", file, "--db", db, "--prom-textfile", prom)
	if code != 0 {
		t.Fatalf("cdm: exit %d, %s", code, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := compare.LoadBytes("cdm.txt", data)
	if err != nil || len(runs) != 1 || runs[0].Block.CDM == nil {
		t.Fatalf("load the run: %v", err)
	}
	res := runs[0].Block
	figures := map[string]float64{}
	for _, f := range runs[0].Figures() {
		figures[f.Key] = f.Values[0]
		if len(f.Values) != 1 {
			t.Errorf("%s: %d values, want the one kept figure", f.Key, len(f.Values))
		}
	}
	families := parseTextfile(t, prom)
	promBW := map[string]float64{}
	for _, m := range families["clyde_block_bandwidth_bytes_per_second"].GetMetric() {
		for _, l := range m.Label {
			if l.GetName() == "test" {
				promBW[l.GetValue()] = m.GetGauge().GetValue()
			}
		}
	}
	if len(res.CDM.Rows) != 4 {
		t.Fatalf("%d rows, want SEQ1M Q8T1 read and write, random and 0Fill", len(res.CDM.Rows))
	}
	for _, row := range res.CDM.Rows {
		key := compare.CDMRowKey(row)
		best := 0.0
		for _, j := range row.Jobs {
			d := res.Jobs[j].Read
			if row.Mode == "write" {
				d = res.Jobs[j].Write
			}
			best = max(best, float64(d.IOBytes)*1e9/float64(d.RuntimeNs))
		}
		if math.Abs(row.BWBytes-best) > best*1e-9 {
			t.Errorf("%s: kept %.0f B/s, best pass %.0f", key, row.BWBytes, best)
		}
		if text := fmt.Sprintf("%9.3f MB/s", row.BWBytes/1e6); !strings.Contains(string(data), text) {
			t.Errorf("%s: the text lacks %q", key, text)
		}
		if got := figures[key]; got != row.BWBytes/1e6 {
			t.Errorf("%s: compare's figure %v MB/s, the row's %v", key, got, row.BWBytes/1e6)
		}
		if got := promBW[key]; got != row.BWBytes {
			t.Errorf("%s: the textfile's %v B/s, the row's %v", key, got, row.BWBytes)
		}
	}
	store, err := history.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	es, err := store.Query(context.Background(), history.Filter{})
	if err != nil || len(es) != 1 {
		t.Fatalf("history: %v, %d entries", err, len(es))
	}
	first := res.CDM.Rows[0]
	if want := compare.CDMRowKey(first) + " "; !strings.HasPrefix(es[0].Summary, want) || !strings.Contains(es[0].Summary, "MB/s") {
		t.Errorf("history summary %q: want it to start with %q in MB/s", es[0].Summary, want)
	}
}
