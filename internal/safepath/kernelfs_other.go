//go:build !linux

package safepath

import "os"

// KernelFS is "": kernel-interface filesystems are Linux's.
func KernelFS(string) string { return "" }

// KernelFSOf is "", as KernelFS.
func KernelFSOf(*os.File) string { return "" }

// KernelFSOfFd is "", as KernelFS.
func KernelFSOfFd(int) string { return "" }
