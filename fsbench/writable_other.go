//go:build !unix

package fsbench

// checkWritable cannot ask in advance here; creating the private directory
// is the check.
func checkWritable(string) error { return nil }
