package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// clydeBin is the binary the process-level tests run, built once by TestMain.
var clydeBin string

func TestMain(m *testing.M) {
	bin, remove, err := clydetest.Build(".")
	if err != nil {
		panic(err)
	}
	clydeBin = bin
	// Keep every run's history out of the user's home, and remove it after.
	os.Setenv("XDG_DATA_HOME", filepath.Join(filepath.Dir(bin), "data"))
	os.Unsetenv("CLYDE_DB")
	code := m.Run()
	remove()
	os.Exit(code)
}

// runClyde runs the CLI in-process and returns its exit code and output.
func runClyde(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runContext(context.Background(), append([]string{"clyde"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestFSBadInputIsRefused(t *testing.T) {
	tests := []struct {
		name string
		args []string
		flag string // the flag the one-line error must name
	}{
		{"negative size", []string{"-s", "-5"}, "-s"},
		{"size not a number", []string{"-s", "big"}, "-s"},
		{"chunk not power of two", []string{"-s", "64:3000"}, "-s"},
		{"zero seeks", []string{"-s", "64:8k:0"}, "-s"},
		{"min over max", []string{"-n", "1:512:4096"}, "-n"},
		{"zero dirs", []string{"-n", "1:0:0:0"}, "-n"},
		{"nothing to do", []string{"-s", "0", "-n", "0"}, "-s"},
		{"file under twice RAM without eviction", []string{"-s", "64", "-r", "1024", "--no-evict"}, "-s"},
		{"negative ram", []string{"-r", "-1"}, "-r"},
		{"zero iterations", []string{"-x", "0"}, "-x"},
		{"zero concurrency", []string{"-c", "0"}, "-c"},
		{"bad seed", []string{"-z", "x1"}, "-z"},
		{"absent seed file", []string{"-Z", "/nonexistent/seeds"}, "-Z"},
		{"seed file not a file", []string{"-Z", "/dev/null"}, "-Z"},
		{"seed and seed file", []string{"-z", "1", "-Z", "../../testdata/bonnie-Z/seeds.bin"}, "-Z"},
		{"bad per-char", []string{"--per-char", "1q"}, "-f"},
		{"comma in name", []string{"-m", "a,b"}, "-m"},
		{"semaphores", []string{"-p", "3"}, "-p/-y"},
		{"direct with 512 chunk", []string{"-D", "-s", "64:512", "-r", "0"}, "-D"},
		{"unknown flag", []string{"--bogus"}, "bogus"},
		{"missing dir", []string{"-d", "/nonexistent/clyde-test"}, "-d"},
		// A size whose bytes overflow int64 once ran a 64 MiB test labelled
		// with the huge number; a g size wrapped around to 64 GiB.
		{"size overflows in bytes", []string{"-s", "17592186044480", "-r", "0"}, "-s"},
		{"g size wraps", []string{"-s", "17179869248g", "-r", "0"}, "-s"},
		{"ram beyond addressable", []string{"-r", "17592186044480"}, "-r"},
		{"k is not a -s unit", []string{"-s", "512k"}, "-s"},
		// A stray word once ran the default-size test in the current directory.
		{"positional argument", []string{"mnt"}, "mnt"},
		{"force without cleanup", []string{"--force"}, "--force"},
		{"auto budget not a time", []string{"--auto=soon"}, "--auto"},
		{"auto budget too short", []string{"--auto=1s"}, "--auto"},
		{"auto with nothing to pick", []string{"--auto", "-s", "64", "-n", "1", "-r", "0"}, "--auto"},
		{"auto with a stray value", []string{"--auto", "5m"}, "5m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"fs", "-d", dir, "-q"}, tc.args...)
			code, stdout, stderr := runClyde(t, args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "clyde: ") || !strings.Contains(lines[0], tc.flag) {
				t.Fatalf("stderr %q: want one line naming %s", stderr, tc.flag)
			}
			if stdout != "" {
				t.Fatalf("stdout %q, want nothing", stdout)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("refused run left %d entries in %s", len(entries), dir)
			}
		})
	}
}

// csvFields splits the last CSV line of out.
func lastCSV(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "1.98,clyde,") {
		t.Fatalf("last line %q is not a clyde 1.98 CSV line", last)
	}
	return strings.Split(last, ",")
}

func TestFSEndToEnd(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runClyde(t, "fs", "-d", dir, "-s", "8", "-r", "0", "-f1",
		"-n", "1:1k:0:2", "-m", "e2e", "-z", "42", "--json", jsonPath)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{
		"Version clyde       ------Sequential Output------ --Sequential Input- --Random-",
		"Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP",
		"Version clyde       ------Sequential Create------ --------Random Create--------",
		"files:max            /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP",
		"e2e              8M ",
		"1:1024:0/2",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if n := strings.Count(stdout, "\nLatency "); n != 2 {
		t.Errorf("%d Latency rows, want 2", n)
	}
	f := lastCSV(t, stdout)
	if len(f) != 50 {
		t.Fatalf("CSV has %d fields, want 50: %v", len(f), f)
	}
	if f[2] != "e2e" || f[4] != "42" || f[5] != "8M" || f[21] != "1" || f[22] != "1024" || f[24] != "2" {
		t.Errorf("CSV fields name/seed/size/files/max/dirs = %q %q %q %q %q %q", f[2], f[4], f[5], f[21], f[22], f[24])
	}
	// stderr is a buffer, not a terminal: a cron job's mail must not fill
	// with progress.
	if strings.Contains(stderr, "Writing a byte at a time") || strings.Contains(stderr, "Using uid") {
		t.Errorf("progress on a non-terminal stderr:\n%s", stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("run left %d entries in %s", len(entries), dir)
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var res result.FS
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if res.Kind != "fs" || res.Provenance.Tool != "clyde" || res.Provenance.Filesystem.Type == "" || len(res.Runs) != 1 {
		t.Fatalf("JSON lacks kind, provenance or runs: %+v", res.Provenance)
	}
	for _, tr := range res.Runs[0].Tests {
		if !tr.Ran || tr.Ops == 0 || tr.ElapsedNs == 0 || tr.Latency.P50Ns == 0 {
			t.Errorf("JSON test %s: ran %v ops %d elapsed %d p50 %d", tr.Name, tr.Ran, tr.Ops, tr.ElapsedNs, tr.Latency.P50Ns)
		}
	}
}

func TestFSQuietAndIterations(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runClyde(t, "fs", "-d", dir, "-s", "0", "-n", "1", "-q", "-x", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "format_version,bonnie_version,name,") {
		t.Fatalf("-x 2 stdout = %q, want a header and two CSV lines", stdout)
	}
	if n := len(strings.Split(lines[0], ",")); n != 50 {
		t.Fatalf("header has %d names, want 50", n)
	}
	if stderr != "" {
		t.Fatalf("-q -x 2 stderr = %q, want nothing", stderr)
	}
	// -q without -x: text on stderr, CSV alone on stdout; --percentiles
	// adds one latency line per test that ran after the tables.
	code, stdout, stderr = runClyde(t, "fs", "-d", dir, "-s", "0", "-n", "1", "-q", "--percentiles")
	if code != 0 || strings.Count(stdout, "\n") != 1 || !strings.Contains(stderr, "Sequential Create") {
		t.Fatalf("-q: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "\nLatency            ops       min") || !strings.Contains(stderr, "\nran_del ") {
		t.Fatalf("--percentiles table missing from stderr:\n%s", stderr)
	}
}

// TestFSSeedFile runs -Z: bonnie++ puts the file name where the seed goes in
// the CSV line, and every run of -x draws the same names from the start of
// the file (fsbench's tests check the draws against bonnie++ itself).
func TestFSSeedFile(t *testing.T) {
	dir := t.TempDir()
	seeds, err := filepath.Abs("../../testdata/bonnie-Z/seeds.bin")
	if err != nil {
		t.Fatal(err)
	}
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runClyde(t, "fs", "-d", dir, "-s", "0", "-n", "1:0:0:1", "-q", "-Z", seeds, "--json", jsonPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if f := lastCSV(t, stdout); f[4] != seeds {
		t.Fatalf("CSV seed field %q, want the -Z file name %q", f[4], seeds)
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.DecodeFS(data)
	if err != nil {
		t.Fatal(err)
	}
	if res.Config.SeedFile != seeds {
		t.Fatalf("JSON seed_file %q, want %q", res.Config.SeedFile, seeds)
	}
}

// startClyde runs the built binary and returns once stderr shows word.
func startClyde(t *testing.T, word string, args ...string) (*exec.Cmd, *bytes.Buffer, *clydetest.SyncBuffer) {
	t.Helper()
	cmd := exec.Command(clydeBin, args...)
	// The phase words are progress, which goes only to a terminal unless
	// asked for; the history goes to a private database.
	cmd.Env = append(os.Environ(), "CLYDE_PROGRESS=1", "CLYDE_DB="+filepath.Join(t.TempDir(), "h.db"))
	var stdout bytes.Buffer
	stderr := &clydetest.SyncBuffer{}
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), word) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("clyde never printed %q; stderr %q", word, stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cmd, &stdout, stderr
}

func TestFSSignalsCleanUp(t *testing.T) {
	tests := []struct {
		name  string
		sig   syscall.Signal
		phase string
		args  []string
	}{
		{"SIGINT in per-char write", syscall.SIGINT, "Writing a byte at a time", []string{"-s", "64", "-f64", "-n", "0"}},
		{"SIGTERM in per-char write", syscall.SIGTERM, "Writing a byte at a time", []string{"-s", "64", "-f64", "-n", "0"}},
		{"SIGINT in file creation", syscall.SIGINT, "Create files in sequential order", []string{"-s", "0", "-n", "128:0:0:8"}},
		{"SIGTERM in stat", syscall.SIGTERM, "Stat files in sequential order", []string{"-s", "0", "-n", "64:0:0:8"}},
		// The terminal closing must clean up like ^C, not leave clyde.<pid>.*.
		{"SIGHUP in per-char write", syscall.SIGHUP, "Writing a byte at a time", []string{"-s", "64", "-f64", "-n", "0"}},
		{"SIGHUP in file creation", syscall.SIGHUP, "Create files in sequential order", []string{"-s", "0", "-n", "128:0:0:8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"fs", "-d", dir, "-r", "0"}, tc.args...)
			cmd, stdout, stderr := startClyde(t, tc.phase, args...)
			sent := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			took := time.Since(sent)
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Fatalf("exit %d (%v), want %d; stderr %q", code, err, exitInterrupted, stderr.String())
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("interrupted run left %d entries in %s", len(entries), dir)
			}
			if !strings.Contains(stdout.String(), "1.98,clyde,") {
				t.Fatalf("interrupted run printed no report of what finished; stdout %q", stdout.String())
			}
			t.Logf("stopped %v after the signal", took)
		})
	}
}

func TestFSCleanupAfterKill(t *testing.T) {
	dir := t.TempDir()
	// Someone else's directory that looks like clyde's must survive: it has no marker.
	lookalike := filepath.Join(dir, "clyde.1.deadbeef")
	if err := os.Mkdir(lookalike, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd, _, _ := startClyde(t, "Writing a byte at a time", "fs", "-d", dir, "-r", "0", "-s", "64", "-f64", "-n", "0")
	cmd.Process.Kill()
	cmd.Wait()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("after SIGKILL %d entries, want the lookalike and the run's directory", len(entries))
	}
	code, stdout, stderr := runClyde(t, "fs", "--cleanup", "-d", dir)
	if code != 0 || !strings.Contains(stdout, "removed ") {
		t.Fatalf("--cleanup: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "clyde.1.deadbeef" {
		t.Fatalf("after --cleanup: %v, want only the lookalike", entries)
	}
}

// TestReportPrintsWhatTheRunPrinted: `clyde report r.json` renders the
// saved result through the same reporter as the run, too-short advice and
// all, so the two print the same bytes.
func TestReportPrintsWhatTheRunPrinted(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	code, runOut, stderr := runClyde(t, "fs", "-d", dir, "-s", "0", "-n", "1", "-r", "0", "-z", "7", "--no-history", "--json", jsonPath)
	if code != 0 {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	if !strings.Contains(runOut, "too short to measure") {
		t.Fatalf("the run printed no too-short advice to compare: %q", runOut)
	}
	code, reportOut, stderr := runClyde(t, "report", jsonPath)
	if code != 0 {
		t.Fatalf("report: exit %d, %s", code, stderr)
	}
	if reportOut != runOut {
		t.Errorf("report printed\n%s\nthe run printed\n%s", reportOut, runOut)
	}
}

// TestFSSilent: --silent prints nothing on success (no tables, CSV or
// notes, not even the regression check's "no baseline yet") but the
// once-a-week line about the columns the check never judges (every file
// test here ran under 0.5 s), which a new history's first run says too
// (issue 30), while the JSON is still written with the check in it.
func TestFSSilent(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(t.TempDir(), "r.json")
	db := filepath.Join(t.TempDir(), "h.db")
	code, stdout, stderr := runClyde(t, "fs", "-d", dir, "-s", "0", "-n", "1", "--silent", "--json", js, "--db", db, "--check-regression", "20")
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and nothing on stdout", code, stdout, stderr)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("--json not written with --silent: %v", err)
	}
	f, err := result.DecodeFS(data)
	if err != nil || f.Check == nil || len(f.Check.Baseline) != 0 {
		t.Fatalf("the JSON's regression check: %+v, %v", f.Check, err)
	}
	// The note names exactly the tests that ran under 0.5 s (how many do
	// depends on how busy the machine is), or there is none.
	var short []string
	for _, tr := range f.Runs[0].Tests {
		if tr.Ran && tr.TooShort {
			short = append(short, tr.Name)
		}
	}
	want := ""
	if len(short) > 0 {
		want = "clyde: note: the regression check cannot judge " + strings.Join(short, ", ") + ": each ran under 0.5 s in this run, the history's first; " +
			"larger sizes (or --auto) make them measurable (said once a week)\n"
	}
	if stderr != want || strings.Join(f.Check.NeverChecked, ", ") != strings.Join(short, ", ") {
		t.Fatalf("stderr %q, never checked %v; want %q", stderr, f.Check.NeverChecked, want)
	}
	// The week's second run says nothing.
	if code, stdout, stderr := runClyde(t, "fs", "-d", dir, "-s", "0", "-n", "1", "--silent", "--db", db, "--check-regression", "20"); code != 0 || stdout+stderr != "" {
		t.Fatalf("second run: exit %d, stdout %q, stderr %q; want nothing", code, stdout, stderr)
	}
	// Without --silent the same run speaks: the check that it cannot alarm yet.
	code, _, stderr = runClyde(t, "fs", "-d", dir, "-s", "0", "-n", "1", "-q", "--db", db, "--check-regression", "20")
	if code != 0 || !strings.Contains(stderr, "regression check: no column fell by the rule") || !strings.Contains(stderr, "the mean of 2 earlier comparable runs") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
