package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/runlock"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

const refDir = "../../testdata/compare/"

// smallFS is a quick fs run's arguments: the file tests only; -q sends
// the text tables to stderr, so only "clyde: " lines there are messages.
func smallFS(dir string, extra ...string) []string {
	return append([]string{"fs", "-d", dir, "-s", "0", "-n", "2", "-m", "keep", "-z", "7", "-q"}, extra...)
}

func oneLine(t *testing.T, stderr string) string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if strings.HasPrefix(l, "clyde: ") || !strings.HasPrefix(stderr, "Version") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "clyde: ") {
		t.Fatalf("stderr %q: want one clyde: line", stderr)
	}
	return lines[0]
}

// perCharFS is a run whose per-char tests take over 0.5 s on any machine
// (4 Mi one-byte calls each, CPU-bound and steady): tests under 0.5 s are
// bonnie++'s +++++, noise the regression check rightly ignores.
func perCharFS(dir string, extra ...string) []string {
	return append([]string{"fs", "-d", dir, "-s", "4", "-r", "0", "-f4", "-n", "0", "-m", "keep", "-z", "7", "-q"}, extra...)
}

// saveCopies saves n copies of e carrying data as their JSON: earlier runs
// planted for the regression check to compare with.
func saveCopies(t *testing.T, store *history.Store, e history.Entry, data []byte, n int) {
	t.Helper()
	e.JSON = data
	for range n {
		if _, err := store.Save(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRegressionExitCode saves a run, plants earlier comparable runs 10x
// faster (two, then five; then five 10x slower) and checks the exit code of
// the next run: no alarm on a baseline of two, exit 3 naming the baseline
// on five, and the flagged run kept out of the next baseline.
func TestRegressionExitCode(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "h.db")
	// The first run has no baseline: a note, no alarm.
	if code, _, stderr := runClyde(t, perCharFS(dir, "--db", db, "--check-regression", "20")...); code != 0 ||
		!strings.Contains(stderr, "no earlier comparable run in the history") {
		t.Fatalf("first run: exit %d, %s", code, stderr)
	}
	store, err := history.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	base, err := store.Query(context.Background(), history.Filter{WithJSON: true})
	if err != nil || len(base) != 1 {
		t.Fatalf("history after one run: %d entries, %v", len(base), err)
	}
	plant := func(factor float64, n int) {
		f, err := result.DecodeFS(base[0].JSON)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Runs {
			for j := range f.Runs[i].Tests {
				f.Runs[i].Tests[j].RatePerSec *= factor
			}
		}
		data, _ := json.Marshal(f)
		saveCopies(t, store, base[0], data, n)
	}
	plant(10, 5)
	code, _, stderr := runClyde(t, perCharFS(dir, "--db", db, "--check-regression", "20")...)
	if code != exitRegression {
		t.Fatalf("after 10x faster runs: exit %d, want %d; stderr %s", code, exitRegression, stderr)
	}
	line := oneLine(t, stderr)
	for _, want := range []string{"regression found", "putc -", "getc -", "no spread n=5+1", " of 6 columns fell more than 20% against the mean of 5 earlier comparable runs (#"} {
		if !strings.Contains(line, want) {
			t.Fatalf("summary %q lacks %q", line, want)
		}
	}
	all, _ := store.Query(context.Background(), history.Filter{})
	if all[0].Flagged == "" || !strings.Contains(all[0].Flagged, "columns fell more than 20%") {
		t.Fatalf("the regressed run #%d is not flagged: %+v", all[0].ID, all[0])
	}
	code, stdout, _ := runClyde(t, "history", "--db", db, "--limit", "1")
	if code != 0 || !strings.Contains(stdout, strconv.FormatInt(all[0].ID, 10)+"!") || !strings.Contains(stdout, "flagged by --check-regression") ||
		!strings.Contains(stdout, "-s 4 -f4 -n 0") || !strings.Contains(stdout, " keep ") {
		t.Fatalf("history does not show the flag, key flags and label: exit %d\n%s", code, stdout)
	}
	plant(0.1, 5)
	// The last five now are the 0.1x runs (the flagged run is not among
	// them in any case): the median is far below.
	code, _, stderr = runClyde(t, perCharFS(dir, "--db", db, "--check-regression", "20")...)
	if code != 0 {
		t.Fatalf("after 10x slower runs: exit %d; stderr %s", code, stderr)
	}
	store.Close()
	if code, _, stderr := runClyde(t, perCharFS(dir, "--check-regression", "abc")...); code != exitUsage {
		t.Fatalf("bad PCT: exit %d, %s", code, stderr)
	}
}

// TestDamagedHistory: a file that is no history is refused before the run
// (exit 2, nothing run or written); damage the up-front check cannot see
// fails the command after the result is printed and its JSON written
// (exit 1, one line), so a cron job hears of it.
func TestDamagedHistory(t *testing.T) {
	t.Run("not a database: refused up front", func(t *testing.T) {
		dir := t.TempDir()
		db := filepath.Join(t.TempDir(), "h.db")
		garbage := []byte(strings.Repeat("not a database ", 20))
		os.WriteFile(db, garbage, 0o644)
		js := filepath.Join(t.TempDir(), "r.json")
		code, stdout, stderr := runClyde(t, smallFS(dir, "--db", db, "--json", js)...)
		if code != exitUsage || stdout != "" {
			t.Fatalf("exit %d, stdout %q with a damaged history; want %d before the run; stderr %s", code, stdout, exitUsage, stderr)
		}
		if line := oneLine(t, stderr); !strings.Contains(line, "--db") || !strings.Contains(line, "not a database") {
			t.Fatalf("error %q", line)
		}
		if _, err := os.Stat(js); !os.IsNotExist(err) {
			t.Fatalf("the JSON was written for a refused run: %v", err)
		}
		if b, _ := os.ReadFile(db); string(b) != string(garbage) {
			t.Fatal("the damaged file was changed")
		}
	})
	t.Run("damaged inside: fails after the result", func(t *testing.T) {
		dir := t.TempDir()
		db := damagedHistory(t)
		js := filepath.Join(t.TempDir(), "r.json")
		code, stdout, stderr := runClyde(t, smallFS(dir, "--db", db, "--json", js)...)
		if code != exitFailed {
			t.Fatalf("exit %d with a damaged history, want %d; stderr %s", code, exitFailed, stderr)
		}
		if line := oneLine(t, stderr); !strings.Contains(line, "damaged") || !strings.Contains(line, "not saved") {
			t.Fatalf("error %q", line)
		}
		if !strings.Contains(stdout, "1.98,clyde,keep,") {
			t.Fatalf("result not printed: %q", stdout)
		}
		if _, err := os.Stat(js); err != nil {
			t.Fatalf("JSON not written: %v", err)
		}
		code, _, stderr = runClyde(t, smallFS(dir, "--db", db, "--no-history", "--check-regression", "20")...)
		if line := oneLine(t, stderr); code != exitFailed || !strings.Contains(line, "regression check could not run") {
			t.Fatalf("regression check on a damaged history: exit %d, %q", code, line)
		}
	})
}

// damagedHistory makes a clyde history whose every page but the first (the
// schema) is overwritten with garbage: it opens and its schema reads fine,
// saving into it or querying it fails.
func damagedHistory(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "h.db")
	store, err := history.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	store.Save(context.Background(), history.Entry{Kind: "fs", JSON: []byte("{}")})
	store.Close()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	var pageSize, pages int64
	raw.QueryRow("PRAGMA page_size").Scan(&pageSize)
	raw.QueryRow("PRAGMA page_count").Scan(&pages)
	raw.Close()
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil || pageSize == 0 || pages < 2 {
		t.Fatalf("open %s: %v (page size %d, %d pages)", db, err, pageSize, pages)
	}
	f.WriteAt([]byte(strings.Repeat("\xff", int(pageSize*(pages-1)))), pageSize)
	f.Close()
	return db
}

// parseTextfile reads a Prometheus textfile with Prometheus' own parser.
func parseTextfile(t *testing.T, path string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("Prometheus' parser rejects the textfile: %v", err)
	}
	return families
}

func TestPromTextfileParses(t *testing.T) {
	dir := t.TempDir()
	prom := filepath.Join(t.TempDir(), "clyde.prom")
	js := filepath.Join(t.TempDir(), "r.json")
	if code, _, stderr := runClyde(t, smallFS(dir, "--no-history", "--prom-textfile", prom, "--json", js)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	families := parseTextfile(t, prom)
	data, _ := os.ReadFile(js)
	res, err := result.DecodeFS(data)
	if err != nil {
		t.Fatal(err)
	}
	// Every test that ran has its rate, short ones (under 0.5 s) too,
	// flagged by clyde_fs_rate_low_confidence.
	if lat := families["clyde_fs_max_latency_seconds"]; lat == nil || len(lat.Metric) == 0 {
		t.Fatalf("no clyde_fs_max_latency_seconds in %v", families)
	}
	rates := families["clyde_fs_rate"]
	if rates == nil || len(rates.Metric) != 6 {
		t.Fatalf("clyde_fs_rate: %v, want the six file tests' rates", rates)
	}
	lowConf := map[string]bool{}
	for _, m := range families["clyde_fs_rate_low_confidence"].GetMetric() {
		for _, l := range m.Label {
			if l.GetName() == "test" {
				lowConf[l.GetValue()] = m.GetGauge().GetValue() == 1
			}
		}
	}
	for name := range families {
		if !strings.HasPrefix(name, "clyde_") {
			t.Errorf("metric %s lacks the clyde_ prefix", name)
		}
	}
	found := 0
	for _, m := range rates.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for _, want := range []string{"host", "dir", "test", "unit"} {
			if labels[want] == "" {
				t.Errorf("metric %v lacks label %s", labels, want)
			}
		}
		for _, tr := range res.Runs[0].Tests {
			if tr.Name == labels["test"] {
				found++
				if got := m.GetGauge().GetValue(); got != tr.RatePerSec || labels["unit"] != tr.RateUnit {
					t.Errorf("%s: %v %s in the textfile, %v %s in the JSON", tr.Name, got, labels["unit"], tr.RatePerSec, tr.RateUnit)
				}
				if lowConf[tr.Name] != tr.TooShort {
					t.Errorf("%s: low confidence %v in the textfile, too short %v in the JSON", tr.Name, lowConf[tr.Name], tr.TooShort)
				}
			}
		}
	}
	if found != len(rates.Metric) {
		t.Fatalf("%d of %d textfile rates matched a test of the result", found, len(rates.Metric))
	}
}

// TestLockNamesHolder holds the lock on -d as a run would (flock on the
// directory, a marker in a private directory of a live process) and checks
// that a second run refuses and names the holder from its marker, and that
// nothing was created for the refused run.
func TestLockNamesHolder(t *testing.T) {
	dir := t.TempDir()
	started := time.Date(2026, 5, 4, 3, 2, 1, 0, time.Local)
	priv := filepath.Join(dir, fmt.Sprintf("clyde.%d.0badc0de", os.Getpid()))
	if err := os.Mkdir(priv, 0o700); err != nil {
		t.Fatal(err)
	}
	m, _ := json.Marshal(rundir.Marker{Tool: "clyde", ID: proc.ID{PID: os.Getpid(), Host: proc.Host(), Start: started}})
	if err := os.WriteFile(filepath.Join(priv, rundir.MarkerName), m, 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	l, err := runlock.Dir(d, dir, nil)
	if errors.Is(err, result.ErrNotSupported) {
		clydetest.Skipf(t, "no run locks on this filesystem: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runClyde(t, smallFS(dir, "--no-history")...)
	l.Release()
	if code != exitFailed {
		t.Fatalf("exit %d while locked, want %d; %s", code, exitFailed, stderr)
	}
	line := oneLine(t, stderr)
	for _, want := range []string{fmt.Sprintf("pid %d", os.Getpid()), sysinfo.Hostname(), "2026-05-04 03:02:01"} {
		if !strings.Contains(line, want) {
			t.Fatalf("%q does not say %s", line, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the refused run left %d entries in %s, want only the holder's", len(entries), dir)
	}
	if err := os.RemoveAll(priv); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runClyde(t, smallFS(dir, "--no-history")...); code != 0 {
		t.Fatalf("after release: exit %d, %s", code, stderr)
	}
}

func TestHistoryCompareReportCLI(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "h.db")
	for range 2 {
		if code, _, stderr := runClyde(t, smallFS(dir, "--db", db)...); code != 0 {
			t.Fatalf("run: exit %d, %s", code, stderr)
		}
	}
	code, stdout, stderr := runClyde(t, "history", "--db", db, "--dir", dir, "--since", "1d")
	runLines := 0
	for _, l := range strings.Split(stdout, "\n") {
		if l != "" && l[0] >= '1' && l[0] <= '9' {
			runLines++
			// label (-m), kind, key flags and key figures on every line
			if !strings.Contains(l, " fs ") || !strings.Contains(l, " keep ") || !strings.Contains(l, "-s 0 -n 2") || !strings.Contains(l, "seq_create ") {
				t.Errorf("history line %q lacks the kind, label, key flags or key figures", l)
			}
		}
	}
	if code != 0 || runLines != 2 || !strings.HasPrefix(stdout, "ID  STARTED") || !strings.Contains(stdout, sysinfo.Hostname()) {
		t.Fatalf("history: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = runClyde(t, "compare", "--db", db, "1", "#2", refDir+"bonnie-2.00a-ext4.txt")
	if code != 0 || !strings.Contains(stdout, "vs A") || !strings.Contains(stdout, "put_block") {
		t.Fatalf("compare: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = runClyde(t, "report", "--db", db, "2", "--format", "csv")
	if code != 0 || !strings.HasPrefix(stdout, "1.98,clyde,keep,") {
		t.Fatalf("report csv: exit %d, %q", code, stdout)
	}
	code, stdout, _ = runClyde(t, "report", refDir+"bonnie-2.00a-lines.csv", "--format", "json")
	var arr []map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &arr) != nil || len(arr) != 10 {
		t.Fatalf("report json: exit %d, %d results", code, len(arr))
	}

	tmp := t.TempDir()
	trunc := filepath.Join(tmp, "t.json")
	os.WriteFile(trunc, []byte(`{"kind":"fs","schema_version":1,"runs":[{"iter`), 0o644)
	blockJSON := filepath.Join(tmp, "b.json")
	os.WriteFile(blockJSON, []byte(`{"kind":"block","schema_version":1,"jobs":[{"jobname":"x","read":{"total_ios":1,"iops":1}}]}`), 0o644)
	shapeless := filepath.Join(tmp, "s.json")
	os.WriteFile(shapeless, []byte(`{"kind":"block","schema_version":1}`), 0o644)
	neither := filepath.Join(tmp, "n.txt")
	os.WriteFile(neither, []byte("just some words\n"), 0o644)
	bad := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"unknown id", []string{"compare", "--db", db, "1", "999"}, "999 is not in", exitFailed},
		{"neither", []string{"compare", neither, "1", "--db", db}, "neither a clyde JSON", exitFailed},
		{"truncated", []string{"compare", "--db", db, "1", trunc}, "truncated JSON", exitFailed},
		{"short CSV line", []string{"compare", refDir + "bonnie-2.00a-ext4.txt", "1.98,2.00a,x,1,1,2G,,8192,5,730,99,142246"}, "fields", exitFailed},
		{"fs vs block", []string{"compare", refDir + "bonnie-2.00a-ext4.txt", blockJSON}, "cannot compare an fs run", exitFailed},
		{"shapeless result", []string{"report", shapeless}, "no jobs", exitFailed},
		{"bad since", []string{"history", "--db", db, "--since", "lately"}, "--since", exitUsage},
		{"one run", []string{"compare", refDir + "bonnie-2.00a-ext4.txt"}, "at least two", exitUsage},
		{"bad format", []string{"report", refDir + "bonnie-2.00a-ext4.txt", "--format", "pdf"}, "--format", exitUsage},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runClyde(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; %s", code, tc.code, stderr)
			}
			if line := oneLine(t, stderr); !strings.Contains(line, tc.want) {
				t.Fatalf("%q lacks %q", line, tc.want)
			}
		})
	}
}

// TestHTMLInChromium renders bonnie++ imports as HTML, opens the page in
// headless Chromium and checks the rendered DOM shows every run and chart.
func TestHTMLInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if _, err2 := os.Stat("/usr/bin/chromium"); err2 != nil {
			clydetest.Skip(t, "chromium is not installed (Debian package chromium); CI installs it")
		}
		chromium = "/usr/bin/chromium"
	}
	page := filepath.Join(t.TempDir(), "report.html")
	code, _, stderr := runClyde(t, "report", "--format", "html", "-o", page,
		refDir+"bonnie-2.00a-lines.csv", refDir+"bonnie-1.96-ssd-840pro-vs-m4.txt")
	if code != 0 {
		t.Fatalf("report: exit %d, %s", code, stderr)
	}
	html, _ := os.ReadFile(page)
	for _, bad := range []string{"<script", "<link", "src=\"http", "url(http", "@import"} {
		if strings.Contains(string(html), bad) {
			t.Fatalf("the page holds %q: it must load nothing", bad)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	d := string(dom)
	// 10 CSV lines and 2 text reports: a row each in the Runs table and a
	// bar each in every bar chart (internal/htmlreport checks the figures).
	if n := strings.Count(d, `<tr class="run" `); n != 12 {
		t.Errorf("%d rows in the Runs table, want 12", n)
	}
	if n := strings.Count(d, `<figure class="barchart"`); n != 12 {
		t.Errorf("%d bar charts, want one per test", n)
	}
	for i := 1; i <= 10; i++ {
		if !strings.Contains(d, "bonnie-2.00a-lines.csv:"+strconv.Itoa(i)) {
			t.Errorf("run from CSV line %d not shown", i)
		}
	}
	for _, host := range []string{"lab-btrfs", "lab-ntfs", "geek.sc", "seekcpu"} {
		if !strings.Contains(d, host) {
			t.Errorf("host %s not shown", host)
		}
	}
	if n := strings.Count(d, "<svg"); n < 6 {
		t.Errorf("%d charts rendered, want at least the six IO columns'", n)
	}
}
