//go:build !linux

package safepath

// KernelFS is "": kernel-interface filesystems are Linux's.
func KernelFS(string) string { return "" }
