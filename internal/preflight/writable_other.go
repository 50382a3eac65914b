//go:build !unix

package preflight

// writable cannot ask in advance here; creating the private directory is the
// check.
func writable(string) error { return nil }
