package copyreport

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/copy")

const dir = "../../testdata/copy"

// The inputs are saved results: run.json from copybench's golden test
// (seeded data, fixed clock), the others from real runs on loop-mounted
// btrfs, ext4 to btrfs, ntfs-3g and tmpfs with their host details replaced,
// and one interrupted. Rendering them is what `clyde report FILE` does.
var inputs = []string{"run", "btrfs-all", "ext4-to-btrfs", "ntfs-no-fsync", "tmpfs-warm", "interrupted"}

func load(t *testing.T, name string) *result.Copy {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.DecodeCopy(data)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGoldens(t *testing.T) {
	for _, in := range inputs {
		for _, format := range Formats {
			golden := in + "." + map[string]string{"text": "txt", "csv": "csv", "json": "json"}[format]
			t.Run(golden, func(t *testing.T) {
				var got bytes.Buffer
				if err := Write(&got, format, load(t, in)); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, golden)
				if *update && format != "json" {
					if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("%s differs (rerun with -update if intended):\n%s", golden, got.String())
				}
			})
		}
	}
}

// TestClonesAreNotRates checks the one thing the copy report must never
// do: print a clone's rate in the MB/s table beside real copies.
func TestClonesAreNotRates(t *testing.T) {
	res := load(t, "btrfs-all")
	var out bytes.Buffer
	if err := Text(&out, res); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	rates, clones, ok := strings.Cut(text, "no data copied")
	if !ok {
		t.Fatalf("no clone section in:\n%s", text)
	}
	for _, m := range []string{"clone", "copy_file_range"} {
		if strings.Contains(rates, "  "+m+" ") {
			t.Errorf("%s has a row among the rates:\n%s", m, rates)
		}
		if !strings.Contains(clones, "  "+m+" ") {
			t.Errorf("%s is missing from the clone times:\n%s", m, clones)
		}
	}
	for _, f := range res.Results {
		if rate := fmt.Sprintf("%.3f", f.MBPerSec); f.NotDataCopy && strings.Contains(text, rate) {
			t.Errorf("the clone rate %s of %s %s is printed", rate, f.Method, f.Set)
		}
	}
}
