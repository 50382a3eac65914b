//go:build unix

package stopsig

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestEarlySignalReachesTheStop: a SIGTERM that arrives before the command
// asks for its signals (here: before Notify, with only the initialiser's
// request in place) neither kills the process nor is lost: Notify hands it
// to the stop's channel.
func TestEarlySignalReachesTheStop(t *testing.T) {
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The kernel delivers it to the runtime's handler, which queues it on
	// early; wait until it has (the process is alive, so it was caught).
	for deadline := time.Now().Add(time.Minute); len(early) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the SIGTERM never reached the early channel")
		}
		time.Sleep(time.Millisecond)
	}
	ch := make(chan os.Signal, 8)
	Notify(ch)
	defer func() { Notify(make(chan os.Signal, 8)) }()
	select {
	case sig := <-ch:
		if sig != syscall.SIGTERM {
			t.Fatalf("Notify relayed %v; want SIGTERM", sig)
		}
	case <-time.After(time.Minute):
		t.Fatal("the early SIGTERM was not relayed to the stop")
	}
}
