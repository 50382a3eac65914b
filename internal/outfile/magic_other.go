//go:build !linux

package outfile

// isMagicLink is false: only Linux's procfs has links that are not paths.
func isMagicLink(string) bool { return false }
