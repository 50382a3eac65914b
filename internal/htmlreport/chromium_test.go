package htmlreport

import (
	"bytes"
	"context"
	"fmt"
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

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// chromiumDOM renders page in headless Chromium and returns the DOM it
// built. Chromium gets no network and a fresh profile.
func chromiumDOM(t *testing.T, page []byte, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if _, err := os.Stat("/usr/bin/chromium"); err != nil {
			clydetest.Skip(t, "chromium is not installed (Debian package chromium); CI installs it")
		}
		bin = "/usr/bin/chromium"
	}
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // chromium starts slowly on a busy machine
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir())
	cmd.Args = append(append(cmd.Args, args...), "--dump-dom", "file://"+path)
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

// layoutProbe is put into a test copy of a page, whose own policy allows
// no script: it writes what the layout came to into the DOM, for the test
// to read from Chromium's dump. The page's width as laid out (a page wider
// than the window scrolls sideways), how far down the first heat map's
// colour scale is, and the elements that stick out past the window's
// right edge outside a scrolling box, with every <details> opened.
const layoutProbe = `<script>
(function () {
  var b = document.body, d = document.documentElement;
  // Measured open: a reader opens the table of every figure.
  document.querySelectorAll("details").forEach(function (e) { e.open = true; });
  b.setAttribute("data-scroll-width", String(d.scrollWidth));
  var sc = document.querySelector(".scale");
  b.setAttribute("data-first-scale-top", sc ? String(Math.round(sc.getBoundingClientRect().top + window.scrollY)) : "none");
  var out = [];
  document.querySelectorAll("body *").forEach(function (e) {
    if (e.closest(".scroll") || e.getBoundingClientRect().right <= d.clientWidth + 0.5) return;
    out.push(e.tagName + "." + e.className);
  });
  b.setAttribute("data-overflowing", out.slice(0, 8).join(" "));
})();
</script>`

// pageAt1280 renders the page of the result files names (under testdata/) in
// Chromium 1280 px wide and returns the DOM, after checking the page does
// not scroll sideways there.
func pageAt1280(t *testing.T, names ...string) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, load(t, names...)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`)
	if !csp.MatchString(page) {
		t.Fatal("the page has no Content-Security-Policy")
	}
	page = csp.ReplaceAllString(page, "")
	page = strings.Replace(page, "</body>", layoutProbe+"</body>", 1)
	dom := chromiumDOM(t, []byte(page), "--window-size=1280,2000", "--hide-scrollbars")
	m := regexp.MustCompile(`<body data-scroll-width="(\d+)" data-first-scale-top="([^"]*)" data-overflowing="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("the layout probe did not run in Chromium")
	}
	t.Logf("laid out %s px wide; first colour scale at %s px", m[1], m[2])
	if w, _ := strconv.Atoi(m[1]); w > 1280 {
		t.Errorf("the page is %d px wide at a 1280 px window: it scrolls sideways (sticking out: %s)", w, m[3])
	}
	return dom
}

// attr reads attribute name of the first tag s holds.
func attr(t *testing.T, s, name string) string {
	t.Helper()
	m := regexp.MustCompile(` ` + regexp.QuoteMeta(name) + `="([^"]*)"`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %s in %.200s", name, s)
	}
	return html.UnescapeString(m[1])
}

// fieldText is the text of the element of class cls inside s.
func fieldText(t *testing.T, s, cls string) string {
	t.Helper()
	m := regexp.MustCompile(`class="` + regexp.QuoteMeta(cls) + `"[^>]*>([^<]*)<`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %s in %.300s", cls, s)
	}
	return strings.TrimSpace(html.UnescapeString(m[1]))
}

// blockJSON reads a clyde block result straight from its JSON.
func blockJSON(t *testing.T, name string) *result.Block {
	t.Helper()
	data, err := os.ReadFile(testdata + name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := result.DecodeBlock(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkToolFirst checks a tool page's order: its title, the tool's view
// before the Runs table, and the table of every figure (fio's job names)
// at the end.
func checkToolFirst(t *testing.T, dom, title string) {
	t.Helper()
	if !strings.Contains(dom, "<title>"+html.EscapeString(title)) {
		t.Errorf("the page's title is not %q", title)
	}
	if strings.Contains(dom, "<title>clyde block: one run") {
		t.Error(`the page is titled "clyde block: one run"`)
	}
	tool, runs, all := strings.Index(dom, `<section class="tool`), strings.Index(dom, "<h2>Runs</h2>"), strings.Index(dom, `<details class="all-figures"`)
	if tool < 0 || runs < tool || all < runs || strings.Contains(dom[all:], `<section class="tool`) {
		t.Errorf("tool view at %d, Runs at %d, the figures table at %d: want the tool first and every figure last", tool, runs, all)
	}
}

// TestCDMPageInChromium: CrystalDiskMark's window, each cell's MB/s (10^6
// B/s), IOPS and latency, random and 0Fill side by side with their ratio,
// and the fill level, as the JSON has them.
func TestCDMPageInChromium(t *testing.T) {
	t.Parallel() // each waits on its own Chromium
	const name = "html/cdm-both.json"
	dom := pageAt1280(t, name)
	res := blockJSON(t, name)
	checkToolFirst(t, dom, "CrystalDiskMark (clyde): Default on ")
	type key struct{ test, mode, data string }
	rows := map[key]result.BlockCDMRow{}
	for _, r := range res.CDM.Rows {
		rows[key{r.Test, r.Mode, r.Data}] = r
	}
	cells := 0
	trs := regexp.MustCompile(`(?s)<tr data-test="([^"]+)">(.*?)</tr>`).FindAllStringSubmatch(dom, -1)
	for _, tr := range trs {
		test := html.UnescapeString(tr[1])
		for _, td := range regexp.MustCompile(`(?s)<td class="fig"[^>]*>.*?</td>`).FindAllString(tr[2], -1) {
			mode, data := attr(t, td, "data-mode"), attr(t, td, "data-data")
			r, ok := rows[key{test, mode, data}]
			if !ok {
				t.Fatalf("cell %s %s %s: no such row in the JSON", test, mode, data)
			}
			where := test + " " + mode + " " + data
			checkShown(t, where+" MB/s", fieldText(t, td, "mbps"), r.BWBytes/1e6, false)
			checkShown(t, where+" IOPS", fieldText(t, td, "iops"), r.IOPS, false)
			checkShown(t, where+" latency", fieldText(t, td, "lat"), r.LatencyUs, false)
			cells++
		}
		for _, rm := range regexp.MustCompile(`<td class="ratio" data-mode="([a-z]+)"[^>]*>x([0-9.]+)</td>`).FindAllStringSubmatch(tr[2], -1) {
			rnd, zero := rows[key{test, rm[1], "random"}], rows[key{test, rm[1], "zero"}]
			checkShown(t, test+" "+rm[1]+" 0Fill/Random", rm[2], zero.BWBytes/rnd.BWBytes, false)
			cells++
		}
	}
	// Every row twice (random, 0Fill), and a ratio per test and mode.
	if want := len(res.CDM.Rows) * 3 / 2; cells != want || len(trs) != 4 {
		t.Errorf("%d cells in %d tests checked, want %d in 4 (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1)", cells, len(trs), want)
	}
	for _, test := range []string{"SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"} {
		if !strings.Contains(dom, `<th class="test">`+test+`</th>`) {
			t.Errorf("no row %s", test)
		}
	}
	s := res.Space
	drive := fieldText(t, dom, "drive")
	if pct := fmt.Sprintf(": %.0f%% (", float64(s.UsedBytes)/float64(s.TotalBytes)*100); !strings.Contains(drive, pct) || s.Fill == nil {
		t.Errorf("the drive box says %q, want the fill level%s", drive, pct)
	}
	if !strings.Contains(dom, "Fill:</th><td>"+s.Fill.Request+",") {
		t.Errorf("the page does not say the fill asked for (%s)", s.Fill.Request)
	}
}

// TestOrionPageInChromium: ORION's summary first, each figure with the
// point where it was reached, worked out here from the JSON's points; the
// heat maps with their colour scales near the top of the page, spanning
// the matrix's figures.
func TestOrionPageInChromium(t *testing.T) {
	t.Parallel() // each waits on its own Chromium
	const name = "html/orion-normal.json"
	dom := pageAt1280(t, name)
	res := blockJSON(t, name)
	checkToolFirst(t, dom, "ORION (clyde): ssd, -run normal")
	set := res.Orion.Sets[0]
	var maxMBPS, maxIOPS, minLat *result.OrionPoint
	for i := range set.Points {
		p := &set.Points[i]
		if p.Large > 0 && (maxMBPS == nil || p.LargeMBPS > maxMBPS.LargeMBPS) {
			maxMBPS = p
		}
		if p.Small > 0 && (maxIOPS == nil || p.SmallIOPS > maxIOPS.SmallIOPS) {
			maxIOPS = p
		}
		if p.Small > 0 && (minLat == nil || p.SmallLatUs < minLat.SmallLatUs) {
			minLat = p
		}
	}
	peaks := regexp.MustCompile(`(?s)<div class="peak" data-key="([a-z]+)".*?</div>`).FindAllStringSubmatch(dom, -1)
	if len(peaks) != 3 {
		t.Fatalf("%d summary figures, want ORION's three", len(peaks))
	}
	for _, pm := range peaks {
		p, v := map[string]*result.OrionPoint{"mbps": maxMBPS, "iops": maxIOPS, "latency": minLat}[pm[1]], 0.0
		switch pm[1] {
		case "mbps":
			v = p.LargeMBPS
		case "iops":
			v = p.SmallIOPS
		case "latency":
			v = p.SmallLatUs
		}
		checkShown(t, "summary "+pm[1], fieldText(t, pm[0], "big"), v, false)
		if at := fmt.Sprintf("@ Small=%d and Large=%d", p.Small, p.Large); fieldText(t, pm[0], "at") != at {
			t.Errorf("summary %s is at %q, the JSON's point is %s", pm[1], fieldText(t, pm[0], "at"), at)
		}
	}
	if top := attr(t, dom[strings.Index(dom, "<body"):], "data-first-scale-top"); top == "none" {
		t.Fatal("no heat map colour scale")
	} else if y, _ := strconv.Atoi(top); y > 1000 {
		t.Errorf("the first heat map's colour scale is %d px down the page", y)
	}
	scales := regexp.MustCompile(`<div class="scale" data-unit="([^"]+)" data-min="([^"]+)" data-max="([^"]+)">`).FindAllStringSubmatch(dom, -1)
	want := map[string][2]float64{"IOPS": {math.Inf(1), math.Inf(-1)}, "MBPS": {math.Inf(1), math.Inf(-1)}, "us": {math.Inf(1), math.Inf(-1)}}
	span := func(unit string, v float64) {
		want[unit] = [2]float64{math.Min(want[unit][0], v), math.Max(want[unit][1], v)}
	}
	for _, p := range set.Points {
		if p.Small > 0 {
			span("IOPS", p.SmallIOPS)
			span("us", p.SmallLatUs)
		}
		if p.Large > 0 {
			span("MBPS", p.LargeMBPS)
		}
	}
	if len(scales) != 3 {
		t.Fatalf("%d heat map scales, want IOPS, MBPS and latency", len(scales))
	}
	for _, sm := range scales {
		lo, _ := strconv.ParseFloat(sm[2], 64)
		hi, _ := strconv.ParseFloat(sm[3], 64)
		if w := want[sm[1]]; lo != w[0] || hi != w[1] {
			t.Errorf("%s scale %v..%v, the matrix spans %v..%v", sm[1], lo, hi, w[0], w[1])
		}
	}
	for _, c := range []string{"small I/O IOPS by load", "large I/O MBPS by load", "small I/O latency by load"} {
		if !strings.Contains(dom, c) {
			t.Errorf("no curve %q", c)
		}
	}
}

// TestIometerPageInChromium: Iometer's results display, the .icf named,
// Total I/Os per Second first, and every test's figures as the JSON has
// them.
func TestIometerPageInChromium(t *testing.T) {
	t.Parallel() // each waits on its own Chromium
	const name = "html/iometer-cycled.json"
	dom := pageAt1280(t, name)
	res := blockJSON(t, name)
	checkToolFirst(t, dom, "Iometer (clyde): 4k-mixes-cycled.icf on ")
	if icf := fieldText(t, dom, "icf"); icf != res.Iometer.Source || icf != "4k-mixes-cycled.icf" {
		t.Errorf("the page names %q as the test setup, the JSON %q", icf, res.Iometer.Source)
	}
	rows := regexp.MustCompile(`(?s)<tr class="test" data-spec="([^"]+)" data-outstanding="(\d+)">(.*?)</tr>`).FindAllStringSubmatch(dom, -1)
	if len(rows) != len(res.Iometer.Tests) || len(rows) != 16 {
		t.Fatalf("%d tests on the page, %d in the JSON, want 4 specifications x 4 steps", len(rows), len(res.Iometer.Tests))
	}
	best := res.Iometer.Tests[0]
	for i, rm := range rows {
		tt := res.Iometer.Tests[i]
		if html.UnescapeString(rm[1]) != tt.AccessSpec || rm[2] != strconv.Itoa(tt.OutstandingIOs) {
			t.Fatalf("row %d is %s at %s, the JSON's test %s at %d", i, rm[1], rm[2], tt.AccessSpec, tt.OutstandingIOs)
		}
		where := fmt.Sprintf("%s at %d", tt.AccessSpec, tt.OutstandingIOs)
		checkShown(t, where+" Total I/Os per Second", fieldText(t, rm[3], "num iops"), tt.IOPS, false)
		checkShown(t, where+" MBps", fieldText(t, rm[3], "num mbps"), tt.MBpsDecimal, false)
		checkShown(t, where+" average response", fieldText(t, rm[3], "num avg"), tt.AvgResponseMs, false)
		checkShown(t, where+" maximum response", fieldText(t, rm[3], "num max"), tt.MaxResponseMs, false)
		checkShown(t, where+" CPU", fieldText(t, rm[3], "num cpu"), tt.CPUPct, false)
		if tt.IOPS > best.IOPS {
			best = tt
		}
	}
	_, head, ok := strings.Cut(dom, `<div class="peaks best"`)
	if !ok {
		t.Fatal("no headline figures")
	}
	if !strings.Contains(head[:200], `<span class="name">Total I/Os per Second</span>`) {
		t.Error("the headline does not open with Total I/Os per Second")
	}
	checkShown(t, "headline Total I/Os per Second", fieldText(t, head, "big"), best.IOPS, false)
}

// TestCopyPageInChromium: CopySpdBench's table, a row per set and method
// with its MB/s (10^6 B/s) and whether its copies were verified.
func TestCopyPageInChromium(t *testing.T) {
	t.Parallel() // each waits on its own Chromium
	const name = "html/copy-all.json"
	dom := pageAt1280(t, name)
	data, err := os.ReadFile(testdata + name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.DecodeCopy(data)
	if err != nil {
		t.Fatal(err)
	}
	checkToolFirst(t, dom, "CopySpdBench (clyde): ")
	rows := regexp.MustCompile(`(?s)<tr data-set="Copy ([^"]+)" data-method="([a-z_]+)">(.*?)</tr>`).FindAllStringSubmatch(dom, -1)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 3 sets x 2 methods (clone is not available on ext4)", len(rows))
	}
	for _, rm := range rows {
		f := res.Figure(rm[1], rm[2])
		if f == nil {
			t.Fatalf("row %s %s: not in the JSON", rm[1], rm[2])
		}
		checkShown(t, rm[1]+" "+rm[2]+" MB/s", fieldText(t, rm[3], "num mbps"), f.MBPerSec, false)
		if v := fieldText(t, rm[3], "verified"); (v == "yes") != f.Verified {
			t.Errorf("%s %s: verified %q, the JSON says %v", rm[1], rm[2], v, f.Verified)
		}
	}
}

// TestComparedToolPagesInChromium: pages of several runs of one tool fit
// 1280 px too (the ORION and copy pages had a Runs table wider
// than that), each run with its own view.
func TestComparedToolPagesInChromium(t *testing.T) {
	t.Parallel() // each waits on its own Chromium
	dom := pageAt1280(t, "html/orion-normal.json", "block/profile-orion.json")
	if n := strings.Count(dom, `<section class="tool orion"`); n != 2 {
		t.Errorf("%d ORION views for two runs", n)
	}
	checkToolFirst(t, dom, "ORION (clyde): 2 runs compared")
}

// TestRepeatsPageInChromium renders two -x 3 runs on one tmpfs at 1280 px
// and checks, against the JSON's repeats, every ± the figures tables print
// (the 95 % interval of the mean of three: t(0.975, 2) = 4.302652729911275
// times s / sqrt 3, worked out here), that a bar with an interval carries
// an error bar, and that a column the page crowns nobody in says why and
// stars no bar.
func TestRepeatsPageInChromium(t *testing.T) {
	t.Parallel()
	inputs := []string{"html/tmpfs-x3-a.json", "html/tmpfs-x3-b.json"}
	dom := pageAt1280(t, inputs...)
	res := map[string]*result.FS{"A": fsJSON(t, inputs[0]), "B": fsJSON(t, inputs[1])}
	rates := func(f *result.FS, tst result.FSTest) []float64 {
		var vs []float64
		for _, r := range f.Runs {
			vs = append(vs, r.Tests[tst].RatePerSec)
		}
		return vs
	}
	const t975df2 = 4.302652729911275
	checked := 0
	reCI := regexp.MustCompile(`<td class="num[^"]*" data-state="([a-z_]+)"[^>]*>([^<]*) <span class="ci">±([^<]*)</span>`)
	for _, tbl := range reTable.FindAllStringSubmatch(dom, -1) {
		heads := reHead.FindAllStringSubmatch(tbl[1], -1)
		for _, row := range reRow.FindAllStringSubmatch(tbl[1], -1) {
			cells := reCI.FindAllStringSubmatch(row[2], -1)
			if len(cells) != len(heads) {
				continue // a latency table's cells: checked for rates only
			}
			for k, c := range cells {
				tst, lat, ok := testByKey(heads[k][1])
				if !ok || lat {
					continue
				}
				vs := rates(res[row[1]], tst)
				var mean, ss float64
				for _, v := range vs {
					mean += v / 3
				}
				for _, v := range vs {
					ss += (v - mean) * (v - mean)
				}
				half := t975df2 * math.Sqrt(ss/2) / math.Sqrt(3)
				scale := 1.0
				if heads[k][2] == "MiB/s" {
					scale = 1.0 / 1024
				}
				checkShown(t, row[1]+" "+heads[k][1]+" ±", c[3], half*scale, false)
				checked++
			}
		}
	}
	if checked < 12 {
		t.Fatalf("checked %d intervals, want every rate cell of both runs", checked)
	}
	reFig := regexp.MustCompile(`(?s)<figure class="barchart" data-key="([^"]+)".*?</figure>`)
	for _, fig := range reFig.FindAllStringSubmatch(dom, -1) {
		if strings.Count(fig[0], `class="ci"`) != 2 {
			t.Errorf("%s: %d error bars, want one a run", fig[1], strings.Count(fig[0], `class="ci"`))
		}
		none := strings.Contains(fig[0], `class="nowinner">no winner: `)
		if stars := strings.Count(fig[0], "★"); none == (stars == 1) || stars > 1 {
			t.Errorf("%s: %d stars, no-winner line %v", fig[1], stars, none)
		}
	}
}
