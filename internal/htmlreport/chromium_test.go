package htmlreport

import (
	"bytes"
	"context"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// chromiumDOM renders page in headless Chromium and returns the DOM it
// built. Chromium gets no network and a fresh profile.
func chromiumDOM(t *testing.T, page []byte) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if _, err := os.Stat("/usr/bin/chromium"); err != nil {
			t.Skip("chromium is not installed (Debian package chromium); CI installs it")
		}
		bin = "/usr/bin/chromium"
	}
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--dump-dom", "file://"+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v: %s", err, stderr.String())
	}
	return string(dom)
}

// fsJSON reads a clyde fs result straight from its JSON, without the
// compare package the page is built with.
func fsJSON(t *testing.T, name string) *result.FS {
	t.Helper()
	data, err := os.ReadFile(testdata + name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := result.DecodeFS(data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// unitFactor converts a rate in the result's unit, or a latency in ns, to
// a unit the page prints.
func unitFactor(t *testing.T, from, to string) float64 {
	t.Helper()
	switch {
	case from == to:
		return 1
	case from == "KiB/s" && to == "MiB/s":
		return 1.0 / 1024
	case from == "ns" && to == "us":
		return 1e-3
	case from == "ns" && to == "ms":
		return 1e-6
	case from == "ns" && to == "s":
		return 1e-9
	}
	t.Fatalf("the page shows %s for a figure in %s", to, from)
	return 0
}

// checkShown checks the number text the page shows (digits as printed,
// a trailing * for a figure under 0.5 s) against want, to the precision
// of the digits shown.
func checkShown(t *testing.T, where, text string, want float64, short bool) {
	t.Helper()
	num := strings.TrimSuffix(text, "*")
	if (num != text) != short {
		t.Errorf("%s: %q, but the JSON's too_short is %v", where, text, short)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		t.Errorf("%s: %q is not a number", where, text)
		return
	}
	decimals := 0
	if i := strings.IndexByte(num, '.'); i >= 0 {
		decimals = len(num) - i - 1
	}
	if tol := 0.5*math.Pow10(-decimals) + 1e-9; math.Abs(v-want) > tol {
		t.Errorf("%s: the page shows %s, the JSON gives %v", where, text, want)
	}
}

var (
	reBarChart = regexp.MustCompile(`<figure class="barchart" data-key="([^"]+)" data-unit="([^"]+)">`)
	reBar      = regexp.MustCompile(`<g class="bar" data-run="([A-Z]+)" data-state="([a-z_]+)"[^>]*>.*?</g>`)
	reNum      = regexp.MustCompile(`<tspan class="num">([^<]*)</tspan>`)
	reTable    = regexp.MustCompile(`(?s)<table class="figures">(.*?)</table>`)
	reHead     = regexp.MustCompile(`<th class="col" data-key="([^"]+)">[^<]*<span class="vs">([^<]*)</span></th>`)
	reRow      = regexp.MustCompile(`(?s)<tr class="figures" data-run="([A-Z]+)">(.*?)</tr>`)
	reCell     = regexp.MustCompile(`<td class="num[^"]*" data-state="([a-z_]+)"[^>]*>([^<]*)`)
	reRunRow   = regexp.MustCompile(`(?s)<tr class="run" data-run="([A-Z]+)">(.*?)</tr>`)
)

// testByKey finds an fs test by its column key ("put_block", "put_block
// max latency").
func testByKey(key string) (result.FSTest, bool, bool) {
	base, lat := strings.CutSuffix(key, " max latency")
	t, ok := result.FSTestNamed(base)
	return t, lat && ok, ok
}

// TestPageInChromium renders the two-SSD comparison (ext4 and xfs on loop
// devices) in headless Chromium and checks every number the rendered page
// shows in its bars and figures tables, the overall geometric mean, and
// what the Runs table says of each run, against the results' JSON.
func TestPageInChromium(t *testing.T) {
	inputs := []string{"html/ssd-ext4.json", "html/ssd-xfs.json"}
	var b bytes.Buffer
	if err := Write(&b, load(t, inputs...)); err != nil {
		t.Fatal(err)
	}
	dom := chromiumDOM(t, b.Bytes())
	res := map[string]*result.FS{"A": fsJSON(t, inputs[0]), "B": fsJSON(t, inputs[1])}

	// Bars: a chart per rate, a bar per run, the figure printed on it.
	charts := reBarChart.FindAllStringSubmatchIndex(dom, -1)
	if len(charts) != 12 {
		t.Fatalf("%d bar charts in the rendered page, want one per test", len(charts))
	}
	bars := 0
	for i, m := range charts {
		key, unit := dom[m[2]:m[3]], html.UnescapeString(dom[m[4]:m[5]])
		end := len(dom)
		if i+1 < len(charts) {
			end = charts[i+1][0]
		}
		test, _, ok := testByKey(key)
		if !ok {
			t.Fatalf("bar chart for %q, no such test", key)
		}
		for _, bm := range reBar.FindAllStringSubmatch(dom[m[1]:end], -1) {
			tr := res[bm[1]].Runs[0].Tests[test]
			num := reNum.FindStringSubmatch(bm[0])
			if num == nil {
				t.Errorf("%s bar %s shows no figure", key, bm[1])
				continue
			}
			checkShown(t, key+" bar "+bm[1], html.UnescapeString(num[1]), tr.RatePerSec*unitFactor(t, tr.RateUnit, unit), tr.TooShort)
			bars++
		}
	}
	if bars != 24 {
		t.Errorf("%d bars with figures, want 24", bars)
	}

	// Figures tables: a unit per column, stated once in the header.
	cells := 0
	for _, tm := range reTable.FindAllStringSubmatch(dom, -1) {
		heads := reHead.FindAllStringSubmatch(tm[1], -1)
		for _, rm := range reRow.FindAllStringSubmatch(tm[1], -1) {
			cs := reCell.FindAllStringSubmatch(rm[2], -1)
			if len(cs) != len(heads) {
				t.Fatalf("row %s has %d cells for %d columns", rm[1], len(cs), len(heads))
			}
			for k, c := range cs {
				key, unit := heads[k][1], html.UnescapeString(heads[k][2])
				test, lat, ok := testByKey(key)
				if !ok {
					t.Fatalf("column %q, no such test", key)
				}
				tr := res[rm[1]].Runs[0].Tests[test]
				where := key + " cell " + rm[1]
				text := strings.TrimSpace(html.UnescapeString(c[2]))
				if lat {
					checkShown(t, where, text, float64(tr.Latency.MaxNs)*unitFactor(t, "ns", unit), false)
				} else {
					checkShown(t, where, text, tr.RatePerSec*unitFactor(t, tr.RateUnit, unit), tr.TooShort)
				}
				cells++
			}
		}
	}
	if cells != 48 {
		t.Errorf("%d figure cells checked, want 2 runs x 24 columns", cells)
	}

	// The overall geometric mean, B over A, of the tests both measured
	// for 0.5 s or more.
	var logs float64
	n := 0
	for i := range res["A"].Runs[0].Tests {
		a, b := res["A"].Runs[0].Tests[i], res["B"].Runs[0].Tests[i]
		if !a.TooShort && !b.TooShort {
			logs += math.Log(b.RatePerSec / a.RatePerSec)
			n++
		}
	}
	_, summary, ok := strings.Cut(dom, `<figure class="summary">`)
	if !ok {
		t.Fatal("no overall summary in the page")
	}
	nums := reNum.FindAllStringSubmatch(summary, 2)
	if len(nums) != 2 || nums[0][1] != "100.0%" {
		t.Fatalf("summary figures %v", nums)
	}
	checkShown(t, "geometric mean of B", strings.TrimSuffix(nums[1][1], "%"), math.Exp(logs/float64(n))*100, false)
	if !strings.Contains(dom, "Geometric mean of "+strconv.Itoa(n)+" rate column(s)") {
		t.Errorf("the summary does not say it is over %d columns", n)
	}

	// The Runs table: host, filesystem and its mount options, from the
	// provenance.
	rows := reRunRow.FindAllStringSubmatch(dom, -1)
	if len(rows) != 2 {
		t.Fatalf("%d rows in the Runs table", len(rows))
	}
	for _, rm := range rows {
		fs := res[rm[1]].Provenance.Filesystem
		for _, want := range []string{res[rm[1]].Provenance.Hostname, ">" + fs.Type + "<", fs.MountOptions, res[rm[1]].Config.MachineName} {
			if !strings.Contains(html.UnescapeString(rm[2]), want) {
				t.Errorf("run %s's row lacks %q: %s", rm[1], want, rm[2])
			}
		}
	}
}

// TestSinglePageInChromium checks a single run's page as rendered: every
// rate and latency its tables show against the JSON, and no comparison.
func TestSinglePageInChromium(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, load(t, "html/ssd-ext4.json")); err != nil {
		t.Fatal(err)
	}
	dom := chromiumDOM(t, b.Bytes())
	res := fsJSON(t, "html/ssd-ext4.json")
	re := regexp.MustCompile(`<tr data-key="([^"]+)"><td>[^<]*</td><td class="num[^"]*" data-run="A" data-state="[a-z_]+" data-value="[^"]*">([^<]*)</td><td>([^<]*)</td>`)
	rows := re.FindAllStringSubmatch(dom, -1)
	if len(rows) != 24 {
		t.Fatalf("%d figure rows in the single-run page, want 24", len(rows))
	}
	for _, r := range rows {
		test, lat, ok := testByKey(r[1])
		if !ok {
			t.Fatalf("row %q, no such test", r[1])
		}
		tr := res.Runs[0].Tests[test]
		text, unit := html.UnescapeString(r[2]), html.UnescapeString(r[3])
		if lat {
			checkShown(t, r[1], text, float64(tr.Latency.MaxNs)*unitFactor(t, "ns", unit), false)
		} else {
			checkShown(t, r[1], text, tr.RatePerSec*unitFactor(t, tr.RateUnit, unit), tr.TooShort)
		}
	}
	_, body, _ := strings.Cut(dom, "</style>")
	for _, bad := range []string{`class="barchart"`, `class="summary"`, "winner", " vs A"} {
		if strings.Contains(body, bad) {
			t.Errorf("the single-run page has %q", bad)
		}
	}
}
