//go:build !unix

package compare

import "os"

// openNonBlocking opens path for reading; without FIFOs that block on
// open, a plain open is enough.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
