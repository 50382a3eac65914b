package blockreport

import (
	"bytes"
	"os"
	"path/filepath"
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
