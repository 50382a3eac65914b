package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/verdict"
	"github.com/clydebench/clyde/result"
)

// TestOneVerdictEverywhere: two -x 3 runs of one command on one tmpfs,
// the second checked against the first, and every output that gives a
// verdict, clyde compare, the HTML page, clyde history and the Prometheus
// textfile, says the same of every column (issue 30): higher, lower, within
// the noise or cannot tell. Three of A's columns are planted ten times
// faster (plantFaster), so that there are columns the rule calls lower
// besides those it calls noise. The rule itself is checked against scipy
// in internal/verdict; this checks that nothing else decides.
func TestOneVerdictEverywhere(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		clydetest.Skip(t, "/dev/shm is not a tmpfs here")
	}
	dir, err := os.MkdirTemp("/dev/shm", "clyde-verdict-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	out := t.TempDir()
	db, prom := filepath.Join(out, "h.db"), filepath.Join(out, "b.prom")
	a, b := filepath.Join(out, "a.json"), filepath.Join(out, "b.json")
	run := func(js string, extra ...string) string {
		t.Helper()
		args := append([]string{"fs", "-d", dir, "-s", "16", "-r", "8", "-f", "-n", "2", "-x", "3", "-m", "same", "-q",
			"--db", db, "--check-regression", "20", "--json", js}, extra...)
		code, _, stderr := runClyde(t, args...)
		if code != 0 {
			t.Fatalf("clyde %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		return stderr
	}
	run(a)
	plantFaster(t, a, db)
	checkLine := run(b, "--prom-textfile", prom)
	rules := map[string]bool{} // each output that names the rule
	for _, l := range strings.Split(checkLine, "\n") {
		if strings.HasPrefix(l, "clyde: regression") {
			rules["the regression line"] = strings.HasSuffix(l, "[the rule: "+verdict.RuleRef+"]")
		}
	}
	if saved, err := os.ReadFile(b); err == nil {
		f, err := result.DecodeFS(saved)
		rules["the run's JSON"] = err == nil && f.Check != nil && f.Check.Rule == verdict.RuleURL
	}
	if code, text, _ := runClyde(t, "compare", a, b); code == 0 {
		rules["compare's text"] = strings.Contains(text, "The rule: "+verdict.RuleRef+".")
	}

	// clyde compare: each column's verdict on B against A.
	code, stdout, stderr := runClyde(t, "compare", "--format", "json", a, b)
	if code != 0 {
		t.Fatalf("compare: exit %d, %s", code, stderr)
	}
	var doc struct {
		Rows []struct {
			Column         string `json:"column"`
			HigherIsBetter bool   `json:"higher_is_better"`
			Cells          []struct {
				Value   *float64 `json:"value"`
				Verdict string   `json:"verdict"`
			} `json:"cells"`
		} `json:"rows"`
		Rule string `json:"rule"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	rules["compare's JSON"] = doc.Rule == verdict.RuleURL
	type says struct{ compare, page, history, prom string }
	cols := map[string]*says{}
	rates := 0
	for _, r := range doc.Rows {
		if len(r.Cells) != 2 || r.Cells[0].Value == nil || r.Cells[1].Value == nil {
			continue
		}
		v := r.Cells[1].Verdict
		if v == "differs" {
			v = "higher"
			if *r.Cells[1].Value < *r.Cells[0].Value {
				v = "lower"
			}
		}
		// The page says which run wins: B for a rate that is higher and
		// for a latency that is lower.
		cols[r.Column] = &says{compare: v, history: "-", prom: "-"}
		if r.HigherIsBetter {
			rates++
			cols[r.Column].history, cols[r.Column].prom = "not listed", "absent"
		}
	}
	for _, tst := range planted {
		if c := cols[tst.Name()]; c == nil || c.compare != "lower" {
			t.Fatalf("compare on the planted %s: %+v, want lower", tst.Name(), c)
		}
	}
	if rates < 8 {
		t.Fatalf("compare has %d rate columns with both figures, want the fs suite's:\n%s", rates, stdout)
	}

	// The page: its winner row, table by table.
	code, page, stderr := runClyde(t, "report", "--format", "html", a, b)
	if code != 0 {
		t.Fatalf("report: exit %d, %s", code, stderr)
	}
	rules["the page"] = strings.Contains(page, verdict.RuleURL)
	keyRe := regexp.MustCompile(`<th class="col" data-key="([^"]+)">`)
	winRe := regexp.MustCompile(`<td class="num"[^>]*>([^<]*)</td>`)
	for _, tbl := range strings.Split(page, `<table class="figures">`)[1:] {
		tbl = tbl[:strings.Index(tbl, "</table>")]
		keys := keyRe.FindAllStringSubmatch(tbl, -1)
		row := tbl[strings.Index(tbl, `<tr class="winner">`):]
		wins := winRe.FindAllStringSubmatch(row, -1)
		if len(keys) != len(wins) {
			t.Fatalf("a figures table with %d columns and %d winners", len(keys), len(wins))
		}
		for i, k := range keys {
			if c := cols[htmlUnescape(k[1])]; c != nil {
				c.page = strings.TrimSuffix(wins[i][1], "*")
			}
		}
	}

	// clyde history: B's line against its baseline (#1, run A).
	code, hist, stderr := runClyde(t, "history", "--db", db)
	if code != 0 {
		t.Fatalf("history: exit %d, %s", code, stderr)
	}
	rules["clyde history"] = strings.Contains(hist, "(--check-regression; the rule: "+verdict.RuleRef+")")
	line := ""
	for _, l := range strings.Split(hist, "\n") {
		if strings.HasPrefix(l, "2 vs #1: ") {
			line = strings.TrimPrefix(l, "2 vs #1: ")
		}
	}
	if line == "" {
		t.Fatalf("history lists no verdicts of run 2 against #1:\n%s", hist)
	}
	colRe := regexp.MustCompile(`([a-z_]+) [+-][0-9.]+% \(p`)
	for _, part := range strings.Split(line, "; ") {
		for _, dir := range []string{"lower", "higher"} {
			if strings.HasPrefix(part, dir+": ") {
				for _, m := range colRe.FindAllStringSubmatch(part, -1) {
					if c := cols[m[1]]; c != nil {
						c.history = dir
					}
				}
			}
		}
	}

	// The textfile: clyde_check_verdict per column.
	text, err := os.ReadFile(prom)
	if err != nil {
		t.Fatal(err)
	}
	rules["the textfile"] = strings.Contains(string(text), "# HELP clyde_check_verdict ") &&
		strings.Contains(string(text), "The rule: "+verdict.RuleURL+"\n")
	promRe := regexp.MustCompile(`(?m)^clyde_check_verdict\{column="([^"]+)"[^}]*\} (\S+)$`)
	for _, m := range promRe.FindAllStringSubmatch(string(text), -1) {
		if c := cols[m[1]]; c != nil {
			c.prom = map[string]string{"1": "higher", "-1": "lower", "0": "within_noise"}[m[2]]
		}
	}

	for key, c := range cols {
		rate := c.history != "-"
		wantPage := map[string]string{"higher": "B", "lower": "A", "within_noise": "none", "cannot_tell": "none"}[c.compare]
		if !rate && (c.compare == "higher" || c.compare == "lower") {
			wantPage = map[string]string{"higher": "A", "lower": "B"}[c.compare] // less is better
		}
		if c.page != wantPage {
			t.Errorf("%s: compare says %s, the page's winner is %q (want %q)", key, c.compare, c.page, wantPage)
		}
		if !rate {
			continue
		}
		wantHist := map[string]string{"higher": "higher", "lower": "lower"}[c.compare]
		if wantHist == "" {
			wantHist = "not listed"
		}
		wantProm := map[string]string{"cannot_tell": "absent"}[c.compare]
		if wantProm == "" {
			wantProm = c.compare
		}
		if c.history != wantHist || c.prom != wantProm {
			t.Errorf("%s: compare says %s, history %s, the textfile %s", key, c.compare, c.history, c.prom)
		}
	}
	t.Logf("column verdicts (compare, page, history, textfile): %s", verdictTable(cols))
	// Every output that gives a verdict points at the rule (issue 30: the
	// rule is said once, and each output links to it).
	for _, out := range []string{"the regression line", "the run's JSON", "compare's text", "compare's JSON", "the page", "clyde history", "the textfile"} {
		if !rules[out] {
			t.Errorf("%s does not name the rule (%s)", out, verdict.RuleURL)
		}
	}
}

// planted are the columns plantFaster makes ten times faster in run A,
// with next to no spread: B's figures are then lower by the rule however
// noisy the machine (Welch's t with B's spread alone, t = 9 sqrt(3) / cv).
var planted = []result.FSTest{result.PutBlock, result.SeqCreate, result.RandStat}

// plantFaster rewrites run A, in its JSON file and in the history (row 1),
// with planted's columns at ten times their mean, so that every output
// has columns the rule calls lower as well as ones it calls noise.
func plantFaster(t *testing.T, path, db string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := result.DecodeFS(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tst := range planted {
		var sum float64
		for _, r := range f.Runs {
			sum += r.Tests[tst].RatePerSec
		}
		for i := range f.Runs {
			f.Runs[i].Tests[tst].RatePerSec = 10 * sum / float64(len(f.Runs)) * (1 + 0.001*float64(i))
		}
	}
	var buf bytes.Buffer
	if err := result.EncodeJSON(&buf, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if res, err := raw.Exec(`UPDATE runs SET result = ? WHERE id = 1`, buf.Bytes()); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("planted %d rows, want run 1", n)
	}
}

// htmlUnescape undoes html/template's escaping of a column key.
func htmlUnescape(s string) string {
	return strings.NewReplacer("&#43;", "+", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'").Replace(s)
}

func verdictTable[T any](cols map[string]*T) string {
	keys := make([]string, 0, len(cols))
	for k := range cols {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, *cols[k]))
	}
	return strings.Join(parts, " ")
}
