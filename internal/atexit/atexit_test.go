package atexit

import (
	"testing"
	"time"
)

func TestRunsOnce(t *testing.T) {
	tests := []struct {
		name            string
		runFirst, abort bool
		want            int
	}{
		{"run's own cleanup, then an abort", true, true, 1},
		{"abort, then the run's cleanup", false, true, 1},
		{"no abort", true, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			done := Register(func() error { calls++; return nil })
			if tc.runFirst {
				_ = done()
			}
			if tc.abort {
				RunAll(time.Minute)
			}
			_ = done()
			if calls != tc.want {
				t.Fatalf("the removal ran %d times, want %d", calls, tc.want)
			}
		})
	}
}

// TestRunAllOrder: the latest registered goes first (a file before the
// directory that holds it).
func TestRunAllOrder(t *testing.T) {
	var order []string
	Register(func() error { order = append(order, "dir"); return nil })
	Register(func() error { order = append(order, "file"); return nil })
	if n := RunAll(time.Minute); n != 2 || len(order) != 2 || order[0] != "file" {
		t.Fatalf("ran %d: %v, want [file dir]", n, order)
	}
}
