package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestIsSecondStop: only a SIGINT later than secondSignalAfter aborts;
// signals sent together, and any later SIGTERM or SIGHUP, are the same stop.
func TestIsSecondStop(t *testing.T) {
	tests := []struct {
		name  string
		sig   os.Signal
		since time.Duration
		want  bool
	}{
		{"timeout's second SIGTERM at once", syscall.SIGTERM, time.Millisecond, false},
		{"SIGINT at once", os.Interrupt, time.Millisecond, false},
		{"SIGHUP at once", syscall.SIGHUP, 0, false},
		{"SIGTERM later", syscall.SIGTERM, time.Minute, false},
		{"a person's second ^C", os.Interrupt, 2 * time.Second, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := isSecondStop(tc.sig, tc.since); got != tc.want {
				t.Fatalf("isSecondStop(%v, %v) = %v, want %v", tc.sig, tc.since, got, tc.want)
			}
		})
	}
}
