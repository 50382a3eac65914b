//go:build windows

package stopsig

import (
	"os"
	"syscall"
)

// Signals end a run cleanly. Go's runtime turns the console control
// events into signals (runtime/os_windows.go, ctrlHandler): CTRL_C_EVENT
// and CTRL_BREAK_EVENT arrive as os.Interrupt; CTRL_CLOSE_EVENT (the
// console window closed), CTRL_LOGOFF_EVENT and CTRL_SHUTDOWN_EVENT as
// syscall.SIGTERM, and for those the runtime keeps the handler from
// returning, since Windows ends the process once it returns. Windows ends
// it anyway some seconds later (5 by default for a console close), so
// cleanup has that long; the private directory left by a run cut off there
// is what `clyde fs --cleanup` removes. There is no SIGHUP here.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM}
