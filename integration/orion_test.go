//go:build linux

package integration

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// orionCSV reads one of ORION's matrices: large load -> small load -> value.
func orionCSV(t *testing.T, path string) map[int]map[int]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	var cols []int
	for _, f := range strings.Split(lines[0], ",")[1:] {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("%s header %q: %v", path, lines[0], err)
		}
		cols = append(cols, n)
	}
	out := map[int]map[int]float64{}
	for _, line := range lines[1:] {
		fields := strings.Split(line, ",")
		large, err := strconv.Atoi(strings.TrimSpace(fields[0]))
		if err != nil {
			t.Fatalf("%s row %q: %v", path, line, err)
		}
		out[large] = map[int]float64{}
		for i, f := range fields[1:] {
			if strings.TrimSpace(f) == "" {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				t.Fatalf("%s row %q: %v", path, line, err)
			}
			out[large][cols[i]] = v
		}
	}
	return out
}

func lunSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestOrionNormalOnExt4 is ORION's normal level, every combination of small
// and large load for one disk, on a LUN file on a loop-mounted ext4, one
// second a point: all of ORION's files are written, the mixed points have
// both small IOPS and large MB/s, and the LUN is read only.
func TestOrionNormalOnExt4(t *testing.T) {
	fs := makeFS(t, ext4, 256)
	lun := filepath.Join(fs.dir, "lun.img")
	data := make([]byte, 48<<20)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lun, data, 0o644); err != nil {
		t.Fatal(err)
	}
	before := lunSum(t, lun)
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "ssd.lun"), []byte(lun+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runClyde(t, "orion", "-run", "normal", "-testname", filepath.Join(out, "ssd"), "-duration", "1",
		"-output-dir", out, "--no-history", "--json", filepath.Join(out, "result.json"))
	if r.code != exitOK {
		t.Fatalf("clyde orion exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "Maximum Small IOPS=") || !strings.Contains(r.stdout, "17 data points") {
		t.Errorf("stdout does not announce the 17 points and end with the summary lines:\n%s", r.stdout)
	}
	prefix := ""
	for _, suf := range []string{"_summary.txt", "_iops.csv", "_mbps.csv", "_lat.csv", "_trace.txt"} {
		m, _ := filepath.Glob(filepath.Join(out, "ssd_*"+suf))
		if len(m) != 1 {
			t.Fatalf("%d files ssd_*%s, want 1", len(m), suf)
		}
		prefix = strings.TrimSuffix(m[0], suf)
	}
	iops, mbps, lat := orionCSV(t, prefix+"_iops.csv"), orionCSV(t, prefix+"_mbps.csv"), orionCSV(t, prefix+"_lat.csv")
	mixed := 0
	for large := 1; large <= 2; large++ {
		for small := 1; small <= 5; small++ {
			if iops[large][small] <= 0 || mbps[large][small] <= 0 || lat[large][small] <= 0 {
				t.Errorf("mixed point Small=%d Large=%d: %v IOPS, %v MBPS, %v us; want all above 0",
					small, large, iops[large][small], mbps[large][small], lat[large][small])
			}
			mixed++
		}
	}
	if mixed != 10 || len(iops[0]) != 5 || len(mbps[1]) != 6 {
		t.Errorf("matrix shape: %d mixed points, %d small-only, %d in the first large row", mixed, len(iops[0]), len(mbps[1]))
	}
	sum, _ := os.ReadFile(prefix + "_summary.txt")
	if !bytes.Contains(sum, []byte("Commandline:\n-run normal -testname ")) || !bytes.Contains(sum, []byte("Total Data Points: 17")) {
		t.Errorf("summary:\n%s", sum)
	}
	if lunSum(t, lun) != before {
		t.Error("a read-only ORION run changed the LUN")
	}
	if entries, _ := os.ReadDir(fs.dir); len(entries) != 2 { // lun.img and lost+found
		t.Errorf("the filesystem holds %d entries after the run, want the LUN and lost+found", len(entries))
	}
}

// TestOrionRefusals: bad input is exit 2, one line, and nothing written.
func TestOrionRefusals(t *testing.T) {
	out := t.TempDir()
	lun := filepath.Join(out, "lun.img")
	if err := os.WriteFile(lun, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(out, name+".lun"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good", lun+"\n")
	write("empty", "")
	write("ghost", filepath.Join(out, "no-such-lun")+"\n")
	before, _ := os.ReadDir(out)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing .lun", []string{"-run", "simple", "-testname", filepath.Join(out, "none")}, "-testname"},
		{"empty .lun", []string{"-run", "simple", "-testname", filepath.Join(out, "empty")}, "lists no LUN"},
		{"LUN does not exist", []string{"-run", "simple", "-testname", filepath.Join(out, "ghost")}, "no-such-lun"},
		{"-write above 100", []string{"-run", "advanced", "-testname", filepath.Join(out, "good"), "-write", "150"}, "-write"},
		{"-write below 0", []string{"-run", "advanced", "-testname", filepath.Join(out, "good"), "-write", "-5"}, "-write"},
		{"unknown -run", []string{"-run", "fastest", "-testname", filepath.Join(out, "good")}, "-run"},
		{"unknown -matrix", []string{"-run", "advanced", "-matrix", "cube", "-testname", filepath.Join(out, "good")}, "-matrix"},
		{"write without --destroy-data", []string{"-run", "simple", "-write", "10", "-testname", filepath.Join(out, "good")}, "--destroy-data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runClyde(t, append(append([]string{"orion"}, tc.args...), "-output-dir", out, "--no-history")...)
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitUsage, r.stderr)
			}
			assertOneLineError(t, r.stderr, tc.want)
			if after, _ := os.ReadDir(out); len(after) != len(before) {
				t.Errorf("a refused run left files in the output directory: %d entries, was %d", len(after), len(before))
			}
		})
	}
}
