package clydetest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// skipRecorder is a testing.TB that records a skip or a failure instead of
// ending the test that uses it.
type skipRecorder struct {
	testing.TB
	skipped, failed string
}

func (r *skipRecorder) Helper() {}

func (r *skipRecorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *skipRecorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// record runs Skipf on a recorder in a goroutine of its own (Skip and
// Fatalf end it, as they end a test).
func record(msg string) *skipRecorder {
	r := &skipRecorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Skipf(r, "%s", msg)
	}()
	<-done
	return r
}

func TestSkipFailsInCI(t *testing.T) {
	cases := []struct {
		name, ci, msg string
		fail          bool
	}{
		{"a missing tool outside CI skips", "", "fio is not installed (apt-get install fio)", false},
		{"a missing tool in CI fails", "1", "fio is not installed (apt-get install fio)", true},
		{"losetup failing in CI fails", "1", "no loop devices here: losetup: exit status 1: losetup: cannot find an unused loop device", true},
		{"not root in CI fails", "1", "integration tests need root: they make loop devices and mount filesystems", true},
		{"an allowed skip in CI skips", "1", "the temporary directory's filesystem does not take O_DIRECT", false},
		{"CLYDE_CI=0 is not CI", "0", "fio is not installed", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(CIEnv, tc.ci)
			r := record(tc.msg)
			switch {
			case tc.fail && (r.failed == "" || r.skipped != ""):
				t.Errorf("Skip(%q) under %s=%q: failed %q, skipped %q; want a failure", tc.msg, CIEnv, tc.ci, r.failed, r.skipped)
			case tc.fail && !strings.Contains(r.failed, tc.msg):
				t.Errorf("the failure %q does not say what would have been skipped", r.failed)
			case !tc.fail && r.skipped != tc.msg:
				t.Errorf("Skip(%q) under %s=%q: failed %q, skipped %q; want the skip", tc.msg, CIEnv, tc.ci, r.failed, r.skipped)
			}
		})
	}
}

func TestAllowedSkipsSayWhy(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range AllowedSkips {
		if a.Reason == "" || len(a.Why) < 20 || seen[a.Reason] {
			t.Errorf("allowed skip %+v: want a reason, once, and why CI may take it", a)
		}
		seen[a.Reason] = true
	}
}

// TestContextEndsBeforeTheTimeout: a test's Context ends CleanupMargin
// before the binary's -timeout (go test always gives one), and TestLimit
// after it began, whichever comes first.
func TestContextEndsBeforeTheTimeout(t *testing.T) {
	td, ok := t.Deadline()
	if !ok {
		t.Skip("run without -timeout: no deadline to end before")
	}
	limit := TestLimit
	t.Cleanup(func() { TestLimit = limit })
	for _, l := range []time.Duration{time.Minute, 1000 * time.Hour} {
		TestLimit = l
		t.Run(l.String(), func(t *testing.T) {
			start := time.Now()
			dl, ok := Context(t).Deadline()
			margin := min(CleanupMargin, time.Until(td)/4)
			if !ok || dl.After(td.Add(-margin)) || dl.After(start.Add(l).Add(time.Second)) {
				t.Errorf("Context ends at %v; want by %v (the -timeout %v less %v) and by %v (TestLimit %v)", dl, td.Add(-margin), td, margin, start.Add(l), l)
			}
			if Context(t) != Context(t) {
				t.Error("two calls for one test give two contexts")
			}
		})
	}
}
