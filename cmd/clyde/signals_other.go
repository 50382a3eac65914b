//go:build !windows

package main

import (
	"os"
	"syscall"
)

// stopSignals end a run cleanly: ^C, kill, and the terminal hanging up.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
