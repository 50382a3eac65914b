package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/result"
)

// What a refusal is about.
const (
	refusedDevice = "device"
	refusedFile   = "file"
)

// RefusedError is a write to a block device or an existing file that the
// safety rules stopped before anything was written. It unwraps to a usage
// error (exit code 2).
type RefusedError struct {
	// Path is the resolved device node or file; Given is the name on the
	// command line when it differs (a symlink such as /dev/disk/by-id/...).
	Path  string
	Given string
	// Kind is "device" or "file".
	Kind string
	// Found is what the target holds or why it is in use.
	Found string
	// Allow is the flag that would allow the write; "" when none does
	// (a target in use is never written).
	Allow string
}

func (e *RefusedError) Error() string {
	name := e.Path
	if e.Given != "" && e.Given != e.Path {
		name = fmt.Sprintf("%s (%s)", e.Path, e.Given)
	}
	kind := e.Kind
	if kind == "" {
		kind = refusedDevice
	}
	if e.Allow == "" {
		return fmt.Sprintf("refusing to write to %s: %s; no flag allows writing to a %s in use, stop using it first", name, e.Found, kind)
	}
	if kind == refusedFile {
		return fmt.Sprintf("refusing to write to %s: found %s; pass %s to overwrite it, or name a path that does not exist yet "+
			"(clyde creates, fills and removes it)", name, e.Found, e.Allow)
	}
	return fmt.Sprintf("refusing to write to %s: found %s; pass %s to overwrite it", name, e.Found, e.Allow)
}

// Unwrap makes a refusal a usage error, so the command exits with code 2.
func (e *RefusedError) Unwrap() error { return &result.UsageError{Flag: "--filename", Msg: e.Error()} }
