// Package clydetest holds what the tests that run the clyde binary share:
// building it once per test binary, a buffer its output can be watched in
// while it runs, each test's deadline for the commands it starts (Context),
// the skip that fails in CI (Skip), and, on Linux, the suite root a test
// binary that mounts and attaches keeps everything under, swept after a run
// that died (StartSuite, Sweep).
package clydetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// OverlayEnv names the `go build -overlay` file Build builds with: make
// mutate sets it, so that tests which run clyde as a binary run the mutant.
const OverlayEnv = "CLYDE_MUTATE_OVERLAY"

// Build compiles the clyde command in pkgDir into a new temporary directory
// readable by every user (tests run it as another user too) and returns the
// binary's path and a function that removes the directory.
func Build(pkgDir string) (bin string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "clyde-bin")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	if err := os.Chmod(dir, 0o755); err != nil {
		remove()
		return "", nil, err
	}
	bin = filepath.Join(dir, "clyde")
	args := []string{"build", "-o", bin}
	if overlay := os.Getenv(OverlayEnv); overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	if out, err := exec.Command("go", append(args, pkgDir)...).CombinedOutput(); err != nil {
		remove()
		return "", nil, fmt.Errorf("build clyde: %v\n%s", err, out)
	}
	return bin, remove, nil
}

// SyncBuffer is a bytes.Buffer safe for one writer and one reader.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// CleanupMargin is how long before the test binary's -timeout a test's
// Context ends: room for the test to fail and its cleanups (unmounts,
// detaches, kills) to run before the timeout's panic, which runs none.
const CleanupMargin = 45 * time.Second

// TestLimit bounds one test (or subtest) from its first Context call: no
// single test may hold the package for longer, however long -timeout is.
var TestLimit = 10 * time.Minute

var (
	ctxMu sync.Mutex
	ctxs  = map[testing.TB]context.Context{}
)

// Context is t's context for the processes it starts
// (exec.CommandContext): cancelled when t ends, and at its deadline, the
// earlier of TestLimit after the first call for t and CleanupMargin (a
// quarter of what is left, when less) before the test binary's -timeout. A test whose child hangs then fails with its
// cleanups run, instead of the whole package's timeout leaving its mounts
// and loop devices behind.
func Context(t testing.TB) context.Context {
	ctxMu.Lock()
	defer ctxMu.Unlock()
	if ctx, ok := ctxs[t]; ok {
		return ctx
	}
	end := time.Now().Add(TestLimit)
	if d, ok := deadlineOf(t); ok {
		// A short -timeout (a child test binary's) leaves a quarter.
		margin := min(CleanupMargin, time.Until(d)/4)
		end = minTime(end, d.Add(-margin))
	}
	ctx, cancel := context.WithDeadline(t.Context(), end)
	ctxs[t] = ctx
	t.Cleanup(func() {
		cancel()
		ctxMu.Lock()
		delete(ctxs, t)
		ctxMu.Unlock()
	})
	return ctx
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// deadlineOf is t.Deadline for the testing.TB that have one.
func deadlineOf(t testing.TB) (time.Time, bool) {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		return d.Deadline()
	}
	return time.Time{}, false
}

// Expired fails t, saying what it waited for, when ctx (from Context) ended
// before t did: the limit, not the command, is then why the command ended.
func Expired(t testing.TB, ctx context.Context, what string) {
	t.Helper()
	if err := ctx.Err(); err != nil {
		dl, _ := ctx.Deadline()
		t.Fatalf("%s: the test's deadline (%s, TestLimit %v or %v before -timeout) passed: %v", what, dl.Format(time.TimeOnly), TestLimit, CleanupMargin, err)
	}
}

// Watch kills the started cmd's process when t's Context ends: a command
// made without exec.CommandContext still cannot outlive the test's
// deadline. Check Expired after its Wait to fail with the reason.
func Watch(t testing.TB, cmd *exec.Cmd) {
	ctx, p := Context(t), cmd.Process
	go func() {
		<-ctx.Done()
		_ = p.Kill() // an error: it had ended already
	}()
}
