// Package usage is the error type for bad input: a flag given a value it does
// not accept. The CLI maps it to exit code 2; engines return it from Validate.
package usage

import (
	"errors"
	"fmt"
)

// Error names the flag at fault, what was wrong and the accepted form.
type Error struct {
	Flag string // as the user types it: "-s", "--rw"
	Msg  string // what is wrong and what is accepted
}

func (e *Error) Error() string {
	if e.Flag == "" {
		return e.Msg
	}
	return e.Flag + ": " + e.Msg
}

// Errorf returns a usage error for flag.
func Errorf(flag, format string, args ...any) error {
	return &Error{Flag: flag, Msg: fmt.Sprintf(format, args...)}
}

// Is reports whether err is, or wraps, a usage error.
func Is(err error) bool {
	var u *Error
	return errors.As(err, &u)
}
