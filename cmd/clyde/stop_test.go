package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/internal/lanes"
	"github.com/clydebench/clyde/result"
)

// TestStopExitCodes: each stop has its own code and words, however the
// engines wrap its cause.
func TestStopExitCodes(t *testing.T) {
	stop := func(cause error) error {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		return fmt.Errorf("--auto calibration: %w", lanes.Interrupted(ctx, fmt.Errorf("per-char write: %w", context.Canceled)))
	}
	for _, tc := range []struct {
		name  string
		err   error
		code  int
		words string
	}{
		{"SIGTERM", stop(signalStop{syscall.SIGTERM}), exitInterrupted, "interrupted by SIGTERM during per-char write"},
		{"SIGINT", stop(signalStop{os.Interrupt}), exitInterrupted, "interrupted by SIGINT during per-char write"},
		{"time bound", stop(overTime{bound: 100 * time.Second, from: "--max-time 100s"}), exitOverTime,
			"stopped by its time bound: 1m40s (--max-time 100s) during per-char write"},
	} {
		if got := exitCode(tc.err); got != tc.code {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.code)
		}
		if !strings.Contains(tc.err.Error(), tc.words) || strings.Contains(tc.err.Error(), "context canceled") {
			t.Errorf("%s: %q, want %q and none of Go's words", tc.name, tc.err, tc.words)
		}
	}
}

func TestAutoBound(t *testing.T) {
	if d, why := (*autoRequest)(nil).bound(); d != 0 || why != "" {
		t.Errorf("no --auto: bound %v %q, want none", d, why)
	}
	d, why := (&autoRequest{budget: 20 * time.Second}).bound()
	if d != 100*time.Second || !strings.Contains(why, "--auto=20s: 5 x the budget") {
		t.Errorf("--auto=20s: bound %v %q, want 1m40s, five times the budget", d, why)
	}
}

func TestMaxTimeRefused(t *testing.T) {
	for _, v := range []string{"0", "-1s", "ten", "", "10001h"} {
		code, _, stderr := runClyde(t, "fs", "-d", t.TempDir(), "--no-history", "--max-time", v)
		if code != exitUsage || !strings.Contains(stderr, "--max-time") {
			t.Errorf("--max-time %q: exit %d, %q; want 2 naming the flag", v, code, stderr)
		}
	}
}

// TestMaxTimeStopsFS: --max-time stops a run as a signal does, exits 124
// with one line naming the phase and where the partial result is, and the
// history keeps it marked partial, out of the baseline.
func TestMaxTimeStopsFS(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	db, js := filepath.Join(out, "h.db"), filepath.Join(out, "r.json")
	// 64 MiB of one-byte calls: far longer than the bound anywhere.
	code, _, stderr := runClyde(t, "fs", "-d", dir, "-s", "64", "-f64", "-n", "0", "-r", "0", "--silent",
		"--db", db, "--json", js, "--max-time", "1s")
	if code != exitOverTime {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitOverTime, stderr)
	}
	line := oneLine(t, stderr)
	for _, w := range []string{"stopped by its time bound: 1s (--max-time 1s) during per-char write",
		"kept as #1 in the history " + db + ", marked partial", "and in " + js} {
		if !strings.Contains(line, w) {
			t.Errorf("%q does not say %q", line, w)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the stopped run left %d entries in %s", len(entries), dir)
	}
	store, err := history.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	all, err := store.Query(context.Background(), history.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || !all[0].IsPartial() || !strings.Contains(all[0].Flagged, "per-char write") {
		t.Fatalf("history %+v, want the one run, partial, naming its phase", all)
	}
	base, err := store.Query(context.Background(), history.Filter{Unflagged: true})
	if err != nil || len(base) != 0 {
		t.Fatalf("baseline candidates %d (%v), want none", len(base), err)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var res result.FS
	if err := json.Unmarshal(b, &res); err != nil || len(res.Runs) != 1 {
		t.Fatalf("JSON: %v", err)
	}
	if !res.Interrupted || !res.Runs[0].Tests[0].Interrupted || strings.Contains(res.Error, "context canceled") {
		t.Errorf("JSON interrupted %v, putc interrupted %v, error %q; want both, in words", res.Interrupted, res.Runs[0].Tests[0].Interrupted, res.Error)
	}
	if code, out, _ := runClyde(t, "history", "--db", db); code != 0 || !strings.Contains(out, "1p ") || !strings.Contains(out, "p partial:") {
		t.Errorf("clyde history: exit %d\n%s\nwant #1 marked partial", code, out)
	}
}

// TestSignalStopKeepsPartial: a signal's stop is the same stop as the
// time bound's: exit 130, the line in words, the partial run kept.
func TestSignalStopKeepsPartial(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	db := filepath.Join(out, "h.db")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	timer := time.AfterFunc(time.Second, func() { cancel(signalStop{syscall.SIGTERM}) })
	defer timer.Stop()
	var stdout, stderr strings.Builder
	code := runContext(ctx, []string{"clyde", "fs", "-d", dir, "-s", "64", "-f64", "-n", "0", "-r", "0", "-q", "--db", db}, &stdout, &stderr)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitInterrupted, stderr.String())
	}
	if line := oneLine(t, stderr.String()); !strings.Contains(line, "interrupted by SIGTERM during per-char write; the partial result is kept as #1 in the history "+db) {
		t.Errorf("%q: want the signal, the phase and where the partial result is", line)
	}
	store, err := history.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if all, err := store.Query(context.Background(), history.Filter{}); err != nil || len(all) != 1 || !all[0].IsPartial() {
		t.Errorf("history %+v (%v), want the one run, partial", all, err)
	}
}

// TestMaxTimeStopsBlockFill: clyde block's stop while it fills a new file
// (a step that returns Go's context.Canceled, which keep then wraps with
// where the partial result went) is said in words, the step named, never
// "context canceled". 1 GiB of fresh random data takes far longer than
// the bound to make.
func TestMaxTimeStopsBlockFill(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	db := filepath.Join(out, "h.db")
	code, _, stderr := runClyde(t, "block", "--filename", filepath.Join(dir, "f"), "--rw", "read", "--bs", "1m", "--size", "1g",
		"--runtime", "10", "--db", db, "--max-time", "100ms")
	if code != exitOverTime {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitOverTime, stderr)
	}
	var line string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.HasPrefix(l, "clyde: stopped") {
			line = l
		}
	}
	if !strings.HasPrefix(line, "clyde: stopped by its time bound: 100ms (--max-time 100ms) during fill "+filepath.Join(dir, "f")+"; the partial result is kept as #1 in the history "+db) ||
		strings.Contains(stderr, "context canceled") {
		t.Errorf("stderr %q: want the bound, the fill and where the partial result is, in words", stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the stopped fill left %d entries in %s", len(entries), dir)
	}
}

// TestMaxTimeDuringCalibration: a bound that ends --auto's calibration
// says so, and that nothing was kept.
func TestMaxTimeDuringCalibration(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	code, _, stderr := runClyde(t, "fs", "-d", dir, "--auto=20s", "--silent", "--db", filepath.Join(out, "h.db"), "--max-time", "300ms")
	if code != exitOverTime {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitOverTime, stderr)
	}
	if line := oneLine(t, stderr); !strings.Contains(line, "stopped by its time bound: 300ms (--max-time 300ms) during") ||
		!strings.Contains(line, "still calibrating, so nothing was measured or kept") {
		t.Errorf("%q: want the bound, the phase and that nothing was kept", line)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the stopped calibration left %d entries in %s", len(entries), dir)
	}
}

// TestStopInWords: a step that returns only Go's context.Canceled when a
// stop cuts it short (a history query) still gets the stop's words and
// exit code.
func TestStopInWords(t *testing.T) {
	bound, cancel := context.WithCancelCause(context.Background())
	cancel(overTime{bound: time.Minute, from: "--max-time 1m"})
	app := newApp(nil, nil)
	app.Metadata = map[string]any{boundKey: bound}
	err := stopInWords(app, context.Background(), fmt.Errorf("--auto: reading earlier sizes: %w", context.Canceled))
	if exitCode(err) != exitOverTime || err.Error() != "stopped by its time bound: 1m0s (--max-time 1m) during --auto: reading earlier sizes" {
		t.Errorf("%q (exit %d), want the bound's words and 124", err, exitCode(err))
	}
	sig, stop := context.WithCancelCause(context.Background())
	stop(signalStop{syscall.SIGHUP})
	err = stopInWords(newApp(nil, nil), sig, fmt.Errorf("read standard input: %w", context.Canceled))
	if exitCode(err) != exitInterrupted || err.Error() != "interrupted by SIGHUP during read standard input" {
		t.Errorf("%q (exit %d), want the signal's words and 130", err, exitCode(err))
	}
	if err := stopInWords(newApp(nil, nil), context.Background(), errors.New("disk full")); err.Error() != "disk full" {
		t.Errorf("a failure with no stop became %q", err)
	}
}

// TestStopInWordsLeavesAbortedJobs: every rank of a job srun -X or mpiexec
// interrupted got the SIGINT, and each rank's line is the job's end as the
// rank knows it: its own stop's words once ("interrupted by SIGINT during
// interrupted by SIGINT during sequential create" was rank 0's line), or
// rank 0's verdict, with 130 on every rank.
func TestStopInWordsLeavesAbortedJobs(t *testing.T) {
	sig, stop := context.WithCancelCause(context.Background())
	stop(signalStop{os.Interrupt})
	for _, own := range []error{
		lanes.Interrupted(sig, fmt.Errorf("sequential create: %w", context.Canceled)),
		errors.New("job aborted: rank 0 (h1) interrupted"),
	} {
		err := stopInWords(newApp(nil, nil), sig, &abortedJob{err: own, interrupted: true})
		if err.Error() != own.Error() || exitCode(err) != exitInterrupted {
			t.Errorf("%q (exit %d), want %q and 130", err, exitCode(err), own)
		}
	}
}

// TestSignalName: the one line names a stop's signal as a person does,
// SIGQUIT (^\) too, never Go's word for it ("quit").
func TestSignalName(t *testing.T) {
	for sig, want := range map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT"} {
		if got := (signalStop{sig}).Error(); got != "interrupted by "+want {
			t.Errorf("%v: %q, want %q", sig, got, "interrupted by "+want)
		}
	}
}
