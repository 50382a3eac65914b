package blockreport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// clyde report's text of a saved ORION run is its matrices' summaries; the
// input is written by package orion's golden test from a synthetic drive.
func TestOrionReportText(t *testing.T) {
	res, err := decodeFile(filepath.Join(dir, "orion-normal.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := Write(&got, "text", res); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "orion-normal.txt")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("orion-normal.txt differs (rerun with -update if intended):\n%s", got.String())
	}
	// It is the summary file's text: the same function renders both.
	var sum bytes.Buffer
	if err := OrionSummary(&sum, res, 0); err != nil || !strings.HasPrefix(got.String(), sum.String()) {
		t.Errorf("report text does not begin with the summary (%v)", err)
	}
}

// _hist.txt holds every I/O of each point once: its buckets add up to the
// point's I/Os of that kind, as the run's JSON counts them (package orion's
// golden run writes both; the JSON is saved without its histograms).
func TestOrionHistCountsEveryIO(t *testing.T) {
	res, err := decodeFile(filepath.Join(dir, "orion-normal.json"))
	if err != nil {
		t.Fatal(err)
	}
	hist, err := os.ReadFile("../../orion/testdata/normal/ssd_20260314_1509_hist.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for _, p := range res.Orion.Sets[0].Points {
		if p.Small > 0 && p.SmallRead != nil {
			want[fmt.Sprintf("Small=%d Large=%d: Small reads", p.Small, p.Large)] = p.SmallRead.N
		}
		if p.Large > 0 && p.LargeRead != nil {
			want[fmt.Sprintf("Small=%d Large=%d: Large reads", p.Small, p.Large)] = p.LargeRead.N
		}
	}
	sections := strings.Split(string(hist), "\nData point ")[1:]
	if len(sections) != len(want) || len(want) == 0 {
		t.Fatalf("%d histograms for %d points' kinds", len(sections), len(want))
	}
	for _, sec := range sections {
		lines := strings.Split(strings.TrimSpace(sec), "\n")
		head, rest, _ := strings.Cut(lines[0], ", ")
		var n, sum int64
		if _, err := fmt.Sscanf(rest, "%d I/Os", &n); err != nil {
			t.Fatalf("%q: %v", lines[0], err)
		}
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			c, _ := strconv.ParseInt(f[len(f)-2], 10, 64)
			sum += c
		}
		if sum != n || n != want[head] {
			t.Errorf("%s: buckets hold %d of %d I/Os; the JSON counts %d", head, sum, n, want[head])
		}
	}
	// A result saved without histograms says so rather than failing.
	var b strings.Builder
	if err := OrionHist(&b, res, 0); err != nil || !strings.Contains(b.String(), "no histogram in this result") {
		t.Errorf("from a saved result: %v\n%s", err, b.String())
	}
}
