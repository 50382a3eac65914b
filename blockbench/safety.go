package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/result"
)

// RefusedError is a write to a block device that the safety rules stopped
// before anything was written. It unwraps to a usage error (exit code 2).
type RefusedError struct {
	// Device is the resolved device node; Given is the name on the command
	// line when it differs (a symlink such as /dev/disk/by-id/...).
	Device string
	Given  string
	// Found is what the device holds or why it is in use.
	Found string
	// Allow is the flag that would allow the write; "" when none does
	// (a device in use is never written).
	Allow string
}

func (e *RefusedError) Error() string {
	name := e.Device
	if e.Given != "" && e.Given != e.Device {
		name = fmt.Sprintf("%s (%s)", e.Device, e.Given)
	}
	if e.Allow == "" {
		return fmt.Sprintf("refusing to write to %s: %s; no flag allows writing to a device in use, stop using it first", name, e.Found)
	}
	return fmt.Sprintf("refusing to write to %s: found %s; pass %s to overwrite it", name, e.Found, e.Allow)
}

// Unwrap makes a refusal a usage error, so the command exits with code 2.
func (e *RefusedError) Unwrap() error { return &result.UsageError{Flag: "--filename", Msg: e.Error()} }
