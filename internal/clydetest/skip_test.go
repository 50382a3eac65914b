package clydetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

// TestNoBareSkips: every test in the module skips through Skip, so that in
// CI a skip for a tool .ci/run installs, or a privilege CI has, fails
// instead of passing silently; a test that called t.Skip itself for
// "losetup not installed" hid exactly that. The functions of this package
// are the one place that may call testing's own Skip.
func TestNoBareSkips(t *testing.T) {
	planted := t.TempDir()
	for name, text := range map[string]string{
		"a_test.go":     "package a\nfunc TestA(t *testing.T) {\n\tt.Skip(\"losetup not installed\")\n}\n",
		"b_test.go":     "package a\nfunc helper(tb testing.TB) { tb.Skipf(\"%s\", \"x\") }\n",
		"c_test.go":     "package a\nfunc TestC(t *testing.T) { clydetest.Skip(t, \"fine\") }\n",
		"testdata/d.go": "t.Skip(\"data, not a test\")\n",
		"e.go":          "package a\n// t.Skip( in a non-test file is not a test's skip\n",
	} {
		p := filepath.Join(planted, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if found, err := bareSkips(planted, ""); err != nil || len(found) != 2 {
		t.Errorf("planted tree: found %q (%v); want a_test.go's and b_test.go's skips alone", found, err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no module root at %s: %v", root, err)
	}
	found, err := bareSkips(root, filepath.Join(root, "internal", "clydetest"))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("tests that skip without clydetest.Skip (a skip CI would not see):\n%s", strings.Join(found, "\n"))
	}
}

// bareSkips lists the lines of the _test.go files under root, except in
// self, that call testing's Skip, Skipf or SkipNow on a test's t, b or tb.
func bareSkips(root, self string) ([]string, error) {
	bare := regexp.MustCompile(`\b(t|b|tb)\.Skip(f|Now)?\(`)
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (path == self || (path != root && strings.HasPrefix(d.Name(), ".")) || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, "_test.go"):
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if bare.MatchString(line) {
				rel, _ := filepath.Rel(root, path)
				found = append(found, fmt.Sprintf("%s:%d: %s", rel, i+1, strings.TrimSpace(line)))
			}
		}
		return nil
	})
	return found, err
}
