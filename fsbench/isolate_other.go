//go:build !linux

package fsbench

// threadsIsolated: outside Linux lanes share the process's descriptor table.
const threadsIsolated = false

// isolateThread does nothing where the kernel has no per-thread descriptor
// tables.
func isolateThread() {}
