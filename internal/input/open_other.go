//go:build !unix

package input

import "os"

// openNonBlocking opens path for reading; without FIFOs that block on
// open there is nothing to wait for.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
