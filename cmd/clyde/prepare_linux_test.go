package main

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestFailedPrepareKeepsEveryOutput is case 15's "a run that fails at
// prepare replaces the previous output file", for every command: each run
// here fails before it measures anything (under ulimit -f the test file
// cannot be written, fs's first test nor copy's sources either; ORION's
// LUN is locked by another run), and its result file (--json, --output)
// keeps what the previous run wrote. The rule is outfile's WriteResult,
// which every command writes its result through, asked with keep.go's one
// measured(); ORION's own files are not made either (orionAction asks the
// same measured()).
func TestFailedPrepareKeepsEveryOutput(t *testing.T) {
	icf, err := filepath.Abs("../../iometer/testdata/two-workers.icf")
	if err != nil {
		t.Fatal(err)
	}
	lunDir := t.TempDir()
	lun := filepath.Join(lunDir, "lun")
	data := make([]byte, 4<<20)
	_, _ = rand.Read(data)
	if err := os.WriteFile(lun, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lunDir, "t.lun"), []byte(lun+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const fsize = "ulimit -f 100" // 50 KiB: room for a result, not a test file
	cases := []struct {
		name   string
		ulimit string
		args   func(dir, out string) []string
	}{
		{"fs", fsize, func(dir, out string) []string { return []string{"fs", "-d", dir, "-s", "16", "-r", "0", "--json", out} }},
		{"copy", fsize, func(dir, out string) []string { return []string{"copy", "-d", dir, "--set", "1m:1", "--json", out} }},
		{"block", fsize, func(dir, out string) []string {
			return []string{"block", "--filename", filepath.Join(dir, "f"), "--size", "4m", "--runtime", "1s", "--output", out}
		}},
		{"iometer", fsize, func(dir, out string) []string {
			return []string{"iometer", icf, "--filename", filepath.Join(dir, "f"), "--output", out}
		}},
		{"orion", "true", func(dir, out string) []string {
			return []string{"orion", "--testname", filepath.Join(lunDir, "t"), "--run", "simple", "--duration", "1", "--direct=false",
				"--output-dir", dir, "--json", out}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "orion" {
				// Another run's lock on the LUN: ORION refuses it while
				// preparing, after its files and --json were checked.
				f, err := os.Open(lun)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
					clydetest.Skipf(t, "cannot lock the LUN: %v", err)
				}
			}
			dir, outDir := t.TempDir(), t.TempDir()
			out := filepath.Join(outDir, "result")
			if err := os.WriteFile(out, []byte("previous\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stderr := runUnderLimit(t, dir, tc.ulimit, append(tc.args(dir, out), "--no-history")...)
			if code == 0 || code == exitInterrupted {
				t.Fatalf("exit %d, want a failed run; stderr:\n%s", code, stderr)
			}
			unchanged(t, out, []byte("previous\n"))
			if es, _ := os.ReadDir(outDir); len(es) != 1 {
				t.Errorf("the output directory holds %v", es)
			}
			if es, _ := os.ReadDir(dir); len(es) != 0 {
				t.Errorf("the failed run left %v in its directory (ORION's files go there too)", es)
			}
		})
	}
}
