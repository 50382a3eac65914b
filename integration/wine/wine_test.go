//go:build linux

// Package wine runs clyde's Windows build under Wine (scripts/wine): clyde
// fs and clyde block on a directory, the windowsaio engine's queue depth,
// ^C, ^Break and a console close, and refusals of bad input. Wine runs the
// Windows code paths but not Windows' cache or timing (it accepts and
// ignores FILE_FLAG_NO_BUFFERING), so these tests check what clyde asks for
// and how it cleans up, never a figure. They skip, saying why, where Wine
// or mingw-w64 is missing (.ci/run installs both).
package wine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// bins are the Windows programs the tests run, built once.
type bins struct {
	dir                                  string
	clyde, ctrlevent                     string
	osioTest, blockbenchTest, rundirTest string
	ioengineTest                         string
	harness                              string
	// server is the wineserver prepare started (see there), serverGone
	// closed once it exits.
	server     *exec.Cmd
	serverEnv  []string
	serverGone chan struct{}
	err        error
	skip       string
	buildOnce  sync.Once
}

var progs bins

func TestMain(m *testing.M) {
	code := m.Run()
	progs.stopServer()
	if progs.dir != "" {
		os.RemoveAll(progs.dir)
	}
	os.Exit(code)
}

// need builds the programs (once) and readies the Wine prefix, or skips.
func need(t *testing.T) *bins {
	t.Helper()
	progs.buildOnce.Do(func() { progs.build() })
	if progs.skip != "" {
		clydetest.Skip(t, progs.skip)
	}
	if progs.err != nil {
		t.Fatal(progs.err)
	}
	return &progs
}

func (b *bins) build() {
	if runtime.GOARCH != "amd64" {
		b.skip = "needs an amd64 host for wine64, this is " + runtime.GOARCH
		return
	}
	for _, tool := range []string{"wine", "x86_64-w64-mingw32-gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.skip = fmt.Sprintf("needs %s (apt-get install wine wine64 gcc-mingw-w64-x86-64; .ci/run does)", tool)
			return
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		b.err = err
		return
	}
	b.harness = filepath.Join(root, "scripts", "wine", "run-windows")
	if b.dir, err = os.MkdirTemp("", "clyde-wine"); err != nil {
		b.err = err
		return
	}
	b.clyde = filepath.Join(b.dir, "clyde.exe")
	b.ctrlevent = filepath.Join(b.dir, "ctrlevent.exe")
	b.osioTest = filepath.Join(b.dir, "osio.test.exe")
	b.blockbenchTest = filepath.Join(b.dir, "blockbench.test.exe")
	b.ioengineTest = filepath.Join(b.dir, "ioengine.test.exe")
	b.rundirTest = filepath.Join(b.dir, "rundir.test.exe")
	steps := [][]string{
		{"build", "-o", b.clyde, "./cmd/clyde"},
		{"build", "-o", b.ctrlevent, "./integration/wine/testdata/ctrlevent"},
		{"test", "-c", "-o", b.osioTest, "./internal/osio"},
		{"test", "-c", "-o", b.blockbenchTest, "./blockbench"},
		{"test", "-c", "-o", b.ioengineTest, "./internal/ioengine"},
		{"test", "-c", "-o", b.rundirTest, "./internal/rundir"},
	}
	for _, s := range steps {
		cmd := exec.Command("go", s...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go %s: %v\n%s", strings.Join(s, " "), err, out)
			return
		}
	}
	// The first run makes the Wine prefix and the bcryptprimitives
	// stand-in (about 10 s); the tests then start from a ready one. It
	// writes to a file, not a pipe: the Wine services it starts
	// (winedevice.exe) live as long as the server and keep its output open.
	if err := b.prepare(); err != nil {
		b.err = err
	}
}

// prepare makes the prefix, then starts a wineserver of it that stays up
// for the whole test binary: Wine's own exits 3 s after its last client,
// and a program starting just then fails with "recvmsg: Connection reset
// by peer". When one is already up (another run of these tests) the new
// one exits at once and that one serves.
func (b *bins) prepare() error {
	logPath := filepath.Join(b.dir, "prepare.log")
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	first := exec.Command(b.harness, b.clyde, "--version")
	first.Stdout, first.Stderr = log, log
	if err := first.Run(); err != nil {
		out, _ := os.ReadFile(logPath)
		return fmt.Errorf("run-windows clyde.exe --version: %v\n%s", err, out)
	}
	prefix := os.Getenv("CLYDE_WINEPREFIX")
	if prefix == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return err
		}
		prefix = filepath.Join(home, ".cache", "clyde-wine") // as scripts/wine/run-windows
	}
	env := append(os.Environ(), "WINEPREFIX="+prefix)
	wait := exec.Command("wineserver", "-w") // the --version run's server goes
	wait.Env = env
	wait.Run()
	srv := exec.Command("wineserver", "-f", "-p")
	srv.Env, srv.Stdout, srv.Stderr = env, log, log
	if err := srv.Start(); err != nil {
		return fmt.Errorf("wineserver: %v", err)
	}
	b.server, b.serverEnv, b.serverGone = srv, env, make(chan struct{})
	go func() { srv.Wait(); close(b.serverGone) }()
	// A program run now starts the services, which hold its output open
	// for as long as they live: give them the log file, not a test's pipe.
	again := exec.Command(b.harness, b.clyde, "--version")
	again.Stdout, again.Stderr = log, log
	if err := again.Run(); err != nil {
		out, _ := os.ReadFile(logPath)
		return fmt.Errorf("run-windows clyde.exe --version: %v\n%s", err, out)
	}
	return nil
}

// stopServer ends the wineserver prepare started, and the Wine services
// with it (wineserver -k), when it is still up: one that exited at once
// because another run's server was up leaves that one alone.
func (b *bins) stopServer() {
	if b.server == nil {
		return
	}
	select {
	case <-b.serverGone:
		return
	default:
	}
	kill := exec.Command("wineserver", "-k")
	kill.Env = b.serverEnv
	kill.Run()
	select {
	case <-b.serverGone:
	case <-time.After(10 * time.Second):
		b.server.Process.Kill()
		<-b.serverGone
	}
}

// winPath is a Linux path as Wine's Z: drive shows it.
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// run is one Windows program's exit code and output.
type run struct {
	code           int
	stdout, stderr string
}

// clydeLines is stderr without Wine's own warnings (lines starting "wine:"
// or a Wine debug channel), which say nothing about clyde.
func (r run) clydeLines() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if l == "" || strings.HasPrefix(l, "wine: ") || strings.Contains(l, ":fixme:") || strings.Contains(l, ":err:") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func (b *bins) start(ctx context.Context, prog string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, b.harness, append([]string{prog}, args...)...)
	// A Wine process left holding the output pipes must not hang the test.
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

func (b *bins) run(t *testing.T, prog string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, stdout, stderr := b.start(ctx, prog, args...)
	err := cmd.Run()
	return result(t, err, stdout, stderr)
}

func result(t *testing.T, err error, stdout, stderr *bytes.Buffer) run {
	t.Helper()
	r := run{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run: %v\n%s", err, r.stderr)
	}
	return r
}

// workDir is a directory holding one file of the user's, which every test
// checks is all that is left, untouched.
func workDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "keep.txt"), []byte("the user's"), 0o600); err != nil {
		t.Fatal(err)
	}
	return d
}

func assertAsFound(t *testing.T, d string) {
	t.Helper()
	entries, err := os.ReadDir(d)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"keep.txt"}) {
		t.Errorf("%s holds %v after the run, want only keep.txt", d, names)
	}
	if b, err := os.ReadFile(filepath.Join(d, "keep.txt")); err != nil || string(b) != "the user's" {
		t.Errorf("keep.txt changed: %q, %v", b, err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestWindowsPackagesUnderWine(t *testing.T) {
	b := need(t)
	t.Parallel()
	for _, tc := range []struct{ bin, run string }{
		{b.osioTest, "Windows"},
		// windowsaio's deepest count of outstanding I/Os equals the
		// depth; the loop allocates nothing on it, counts what psync
		// counts and what the engine gave back, short reads as short,
		// and leaves nothing in flight at a stop.
		{b.blockbenchTest, "WindowsAIOKeepsDepth|LoopsDoNotAllocate|EnginesGiveSameCounts|RawDisk|LoopCounts|LoopStops"},
		// The engines' contract (internal/ioengine's conformance tests):
		// windowsaio and psync move the right bytes, read short, fail,
		// sync and give back every unit in flight.
		{b.ioengineTest, "Engines|Registry"},
		// Wine deletes with the old semantics: a marker read by another
		// process is delete pending while its private directory goes.
		{b.rundirTest, "RemoveWhileMarkerReadWindows"},
	} {
		r := b.run(t, tc.bin, "-test.run", tc.run, "-test.v")
		if r.code != 0 || !strings.Contains(r.stdout, "\nPASS") {
			t.Errorf("%s -test.run %s: exit %d\n%s\n%s", filepath.Base(tc.bin), tc.run, r.code, r.stdout, r.stderr)
		}
		if strings.Count(r.stdout, "--- PASS") == 0 {
			t.Errorf("%s ran no test", filepath.Base(tc.bin))
		}
	}
}

type fsResult struct {
	MaxRSSBytes int64 `json:"max_rss_bytes"`
	Provenance  struct {
		Filesystem struct {
			Type         string `json:"type"`
			ClusterBytes int64  `json:"cluster_bytes"`
		} `json:"filesystem"`
	} `json:"provenance"`
	Runs []struct {
		Tests []struct {
			Name   string `json:"name"`
			Ran    bool   `json:"ran"`
			Direct bool   `json:"direct"`
			Flush  string `json:"flush"`
			Cache  *struct {
				Evicted bool   `json:"evicted"`
				Cold    bool   `json:"cold"`
				Method  string `json:"method"`
			} `json:"cache"`
		} `json:"tests"`
	} `json:"runs"`
}

func TestFSUnderWine(t *testing.T) {
	b := need(t)
	t.Parallel()
	d := workDir(t)
	out := filepath.Join(t.TempDir(), "fs.json")
	r := b.run(t, b.clyde, "fs", "-d", winPath(d), "-s", "8", "-r", "0", "-n", "1:4096:512:4", "-f", "-D", "-q", "--no-history",
		"--json", winPath(out))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	assertAsFound(t, d)
	var res fsResult
	readJSON(t, out, &res)
	if len(res.Runs) != 1 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	for _, tr := range res.Runs[0].Tests {
		switch tr.Name {
		case "putc", "getc":
			continue // -f
		case "rewrite", "get_block", "seeks":
			// Dropped through the FILE_FLAG_NO_BUFFERING open, and not
			// claimed cold: Windows cannot count resident pages.
			if tr.Cache == nil || !tr.Cache.Evicted || tr.Cache.Cold || !strings.Contains(tr.Cache.Method, "FILE_FLAG_NO_BUFFERING") {
				t.Errorf("%s: cache %+v, want evicted by a FILE_FLAG_NO_BUFFERING open, unverified", tr.Name, tr.Cache)
			}
		case "seq_create", "seq_del", "ran_create", "ran_del":
			if tr.Flush == "" {
				t.Errorf("%s: the result does not say what was flushed", tr.Name)
			}
		}
		if !tr.Ran {
			t.Errorf("%s did not run", tr.Name)
		}
		if blockPhase := tr.Name == "put_block" || tr.Name == "rewrite" || tr.Name == "get_block" || tr.Name == "seeks"; blockPhase != tr.Direct {
			t.Errorf("%s: direct %v with -D", tr.Name, tr.Direct)
		}
	}
	if res.MaxRSSBytes <= 0 || res.Provenance.Filesystem.ClusterBytes <= 0 {
		t.Errorf("max RSS %d, cluster %d bytes: want both from Windows", res.MaxRSSBytes, res.Provenance.Filesystem.ClusterBytes)
	}
}

type blockResult struct {
	Jobs []struct {
		JobName string `json:"jobname"`
		Config  struct {
			IOEngine         string `json:"ioengine"`
			IODepth          int    `json:"iodepth"`
			IODepthRequested int    `json:"iodepth_requested"`
			Direct           bool   `json:"direct"`
		} `json:"config"`
		Read struct {
			TotalIOs int64 `json:"total_ios"`
		} `json:"read"`
		Write struct {
			TotalIOs int64 `json:"total_ios"`
		} `json:"write"`
	} `json:"jobs"`
}

func TestBlockUnderWine(t *testing.T) {
	b := need(t)
	t.Parallel()
	cases := []struct {
		name, engine           string
		depth, requested       int
		extra                  []string
		wantEngine             string
		wantDepth, wantRequest int
	}{
		{name: "psync", engine: "psync", depth: 8, wantEngine: "psync", wantDepth: 1, wantRequest: 8},
		{name: "windowsaio", engine: "windowsaio", depth: 8, extra: []string{"--direct"}, wantEngine: "windowsaio", wantDepth: 8},
		{name: "auto at depth 4", engine: "auto", depth: 4, wantEngine: "windowsaio", wantDepth: 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := workDir(t)
			out := filepath.Join(t.TempDir(), "block.json")
			args := append([]string{"block", "--filename", winPath(filepath.Join(d, "clyde.tmp")), "--size", "8m", "--rw", "randrw",
				"--bs", "4k", "--iodepth", fmt.Sprint(tc.depth), "--ioengine", tc.engine, "--runtime", "1s", "--no-history",
				"--output-format", "json", "--output", winPath(out)}, tc.extra...)
			r := b.run(t, b.clyde, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			assertAsFound(t, d)
			var res blockResult
			readJSON(t, out, &res)
			if len(res.Jobs) != 1 {
				t.Fatalf("%d jobs", len(res.Jobs))
			}
			c := res.Jobs[0].Config
			if c.IOEngine != tc.wantEngine || c.IODepth != tc.wantDepth || c.IODepthRequested != tc.wantRequest {
				t.Errorf("ran %s at iodepth %d (requested %d), want %s at %d (%d)", c.IOEngine, c.IODepth, c.IODepthRequested,
					tc.wantEngine, tc.wantDepth, tc.wantRequest)
			}
			if res.Jobs[0].Read.TotalIOs == 0 || res.Jobs[0].Write.TotalIOs == 0 {
				t.Errorf("no reads or no writes counted")
			}
		})
	}
}

func TestCDMUnderWine(t *testing.T) {
	b := need(t)
	t.Parallel()
	d := workDir(t)
	out := filepath.Join(t.TempDir(), "cdm.json")
	r := b.run(t, b.clyde, "block", "--filename", winPath(filepath.Join(d, "clyde.tmp")), "--profile", "cdm", "--runtime", "1s",
		"--passes", "1", "--interval", "0", "--size", "8m", "--no-history", "--output-format", "json", "--output", winPath(out))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	assertAsFound(t, d)
	var res blockResult
	readJSON(t, out, &res)
	rows := 0
	for _, j := range res.Jobs {
		c := j.Config
		want := 1
		switch {
		case strings.HasPrefix(j.JobName, "SEQ1M Q8T1"):
			want = 8
		case strings.HasPrefix(j.JobName, "RND4K Q32T1"):
			want = 32
		}
		rows++
		if c.IODepth != want || c.IODepthRequested != 0 || (want > 1 && c.IOEngine != "windowsaio") {
			t.Errorf("%s ran %s at iodepth %d (requested %d), want iodepth %d", j.JobName, c.IOEngine, c.IODepth, c.IODepthRequested, want)
		}
		if !c.Direct {
			t.Errorf("%s ran through the cache; cdm is unbuffered, as CrystalDiskMark", j.JobName)
		}
	}
	if rows != 16 {
		t.Errorf("%d jobs, want 16 (8 rows, a warm-up and one pass each)", rows)
	}
}

// TestInterruptsUnderWine stops clyde fs in the middle of a run three
// ways: SIGINT to the Wine process, which Wine turns into CTRL_C_EVENT; and
// CTRL_BREAK_EVENT and CTRL_CLOSE_EVENT delivered as Windows does, through
// kernel32's CtrlRoutine (testdata/ctrlevent). Each must clean up and exit
// 130. A real console window closing is not shown: Wine has none here, and
// its SIGTERM and SIGHUP end the process without an event.
func TestInterruptsUnderWine(t *testing.T) {
	b := need(t)
	t.Parallel()
	for _, how := range []string{"ctrlc", "break", "close"} {
		t.Run(how, func(t *testing.T) {
			d := workDir(t)
			args := []string{"fs", "-d", winPath(d), "-s", "256", "-r", "0", "-n", "0", "-q", "--no-history"}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var r run
			if how == "ctrlc" {
				cmd, stdout, stderr := b.start(ctx, b.clyde, args...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if !waitForRun(d, time.Minute) {
					_ = cmd.Process.Kill()
					t.Fatalf("no run directory appeared:\n%s", stderr)
				}
				time.Sleep(500 * time.Millisecond)
				_ = cmd.Process.Signal(syscall.SIGINT)
				r = result(t, cmd.Wait(), stdout, stderr)
			} else {
				cmd, stdout, stderr := b.start(ctx, b.ctrlevent, append([]string{how, winPath(d), winPath(b.clyde)}, args...)...)
				r = result(t, cmd.Run(), stdout, stderr)
			}
			if r.code != 130 {
				t.Errorf("exit %d, want 130\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "interrupted") {
				t.Errorf("stderr does not say it was interrupted:\n%s", r.stderr)
			}
			assertAsFound(t, d)
		})
	}
}

// TestKilledRunUnderWine: a run killed outright (no event, no cleanup)
// leaves its private directory; clyde fs --cleanup recognises it by its
// marker, sees its process is gone though the pid may be reused (Wine
// hands out the same few; the marker's start time tells them apart), and
// removes it.
func TestKilledRunUnderWine(t *testing.T) {
	b := need(t)
	t.Parallel()
	d := workDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, stdout, stderr := b.start(ctx, b.clyde, "fs", "-d", winPath(d), "-s", "256", "-r", "0", "-n", "0", "-q", "--no-history")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitForRun(d, time.Minute) {
		_ = cmd.Process.Kill()
		t.Fatalf("no run directory appeared:\n%s", stderr)
	}
	time.Sleep(300 * time.Millisecond)
	_ = cmd.Process.Kill()
	_ = result(t, cmd.Wait(), stdout, stderr)
	if !waitForRun(d, 0) {
		t.Fatal("the killed run left nothing to clean up; the test shows nothing")
	}
	r := b.run(t, b.clyde, "fs", "--cleanup", "-d", winPath(d))
	if r.code != 0 || !strings.Contains(r.stdout, "removed") {
		t.Errorf("--cleanup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	assertAsFound(t, d)
}

func waitForRun(d string, limit time.Duration) bool {
	for end := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "clyde.") {
				return true
			}
		}
		if !time.Now().Before(end) {
			return false
		}
	}
}

// TestRefusalsUnderWine: bad input is exit 2 with one line naming the
// flag, and nothing is created.
func TestRefusalsUnderWine(t *testing.T) {
	b := need(t)
	t.Parallel()
	cases := []struct {
		name string
		args func(d string) []string
		want string
	}{
		{"bad -s", func(d string) []string { return []string{"fs", "-d", winPath(d), "-s", "12x"} }, "-s"},
		{"-u is refused on Windows", func(d string) []string { return []string{"fs", "-d", winPath(d), "-u", "nobody"} }, "runas"},
		{"an unaligned uncached block size", func(d string) []string {
			return []string{"block", "--filename", winPath(filepath.Join(d, "f")), "--size", "1m", "--bs", "1000", "--direct"}
		}, "--bs"},
		{"a physical drive that is not there", func(d string) []string {
			return []string{"block", "--filename", `\\.\PhysicalDrive9`, "--rw", "read"}
		}, "PhysicalDrive9"},
		{"an unknown engine", func(d string) []string {
			return []string{"block", "--filename", winPath(filepath.Join(d, "f")), "--ioengine", "spdk"}
		}, "--ioengine"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := workDir(t)
			r := b.run(t, b.clyde, append(tc.args(d), "--no-history")...)
			lines := r.clydeLines()
			if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line about %q", r.code, lines, tc.want)
			}
			assertAsFound(t, d)
		})
	}
}
