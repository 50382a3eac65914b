// Package platform holds what every OS-specific piece of clyde shares.
package platform

import "errors"

// ErrNotSupported is returned by an OS primitive this platform lacks. Callers
// record that the feature was not used; nothing silently falls back.
var ErrNotSupported = errors.New("not supported on this platform")
