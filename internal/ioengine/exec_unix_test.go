//go:build unix

package ioengine

import (
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestExecOptions: program= is required, std_redirect must be 0 (fio's
// default 1 would create files outside the run directory), grace_time is
// whole seconds.
func TestExecOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		opts map[string]string
		ok   bool
	}{
		{"program", map[string]string{"program": "true", "std_redirect": "0"}, true},
		{"grace", map[string]string{"program": "true", "std_redirect": "0", "grace_time": "3"}, true},
		{"no program", map[string]string{"std_redirect": "0"}, false},
		{"std_redirect by default", map[string]string{"program": "true"}, false},
		{"std_redirect=1", map[string]string{"program": "true", "std_redirect": "1"}, false},
		{"grace not a number", map[string]string{"program": "true", "std_redirect": "0", "grace_time": "1s"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := execDriver.Check(Job{Name: "j", Options: c.opts}); (err == nil) != c.ok {
				t.Errorf("Check: %v; want accepted %v", err, c.ok)
			}
		})
	}
}

// TestExecRunsTheProgram: the arguments are split at blanks after fio's
// %r (runtime in seconds) and %n (job name); the first unit starts the
// program, a later one waits and, past the runtime, stops it; Close reaps
// it. A program that cannot start fails the first unit.
func TestExecRunsTheProgram(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		clydetest.Skip(t, "no sleep program here")
	}
	e, err := openExec(Config{Name: "nap", Runtime: time.Nanosecond, Options: map[string]string{
		"program": "sleep", "arguments": " %r%r  ", "grace_time": "0", "std_redirect": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	x := e.(*execUnit)
	if want := []string{"sleep", "00"}; !slices.Equal(x.argv, want) {
		t.Errorf("argv %q, want %q", x.argv, want)
	}
	for i := range 2 {
		if u := (&Unit{Op: Read}); e.Queue(u) != Completed || u.Err != nil || u.N != 0 {
			t.Fatalf("unit %d: %d bytes, %v", i, u.N, u.Err)
		}
	}
	if x.cmd == nil || x.cmd.Process == nil {
		t.Fatal("the first unit started no program")
	}
	if err := e.Close(); err != nil || x.cmd.ProcessState == nil {
		t.Errorf("Close: %v; the program reaped: %v", err, x.cmd.ProcessState != nil)
	}
	named, _ := openExec(Config{Name: "job", Runtime: 3 * time.Second, Options: map[string]string{"program": "echo", "arguments": "%n ran %r s", "std_redirect": "0"}})
	if want := []string{"echo", "job", "ran", "3", "s"}; !slices.Equal(named.(*execUnit).argv, want) {
		t.Errorf("argv %q, want %q", named.(*execUnit).argv, want)
	}
	missing, _ := openExec(Config{Name: "x", Options: map[string]string{"program": "/nonexistent/clyde-no-such-program", "std_redirect": "0"}})
	if u := (&Unit{Op: Read}); missing.Queue(u) != Completed || u.Err == nil {
		t.Error("a program that cannot start did not fail the unit")
	}
	_ = missing.Close()
}
