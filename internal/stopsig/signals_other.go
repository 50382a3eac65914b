//go:build !windows

package stopsig

import (
	"os"
	"syscall"
)

// Signals end a run cleanly: ^C, kill, the terminal hanging up, and ^\
// (SIGQUIT). Go's runtime answers an unhandled SIGQUIT with a goroutine dump
// and exit 2, leaving the test file, its marker and the private directory;
// once signal.Notify has it, the runtime only delivers it, whatever
// GOTRACEBACK says (that variable governs crashes, and a notified SIGQUIT is
// none), so ^\ is one more way to ask for the one stop.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
