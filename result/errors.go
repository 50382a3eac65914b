package result

import (
	"errors"
	"fmt"
)

// UsageError is bad input: a flag or option given a value it does not accept.
// Engines return it from Validate and Run (the run was refused before anything
// was written); the CLI maps it to exit code 2. Match it with errors.As.
type UsageError struct {
	Flag string // as the user types it: "-s", "--rw"
	Msg  string // what is wrong and what is accepted
}

func (e *UsageError) Error() string {
	if e.Flag == "" {
		return e.Msg
	}
	return e.Flag + ": " + e.Msg
}

// Usagef returns a *UsageError for flag.
func Usagef(flag, format string, args ...any) error {
	return &UsageError{Flag: flag, Msg: fmt.Sprintf(format, args...)}
}

// IsUsage reports whether err is, or wraps, a *UsageError.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// ErrNotSupported is returned by an OS primitive this platform lacks. Callers
// record that the feature was not used; nothing silently falls back.
var ErrNotSupported = errors.New("not supported on this platform")
