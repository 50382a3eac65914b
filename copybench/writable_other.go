//go:build !unix

package copybench

// checkWritable cannot ask in advance here; creating the private directory
// is the check.
func checkWritable(string) error { return nil }
