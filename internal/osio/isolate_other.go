//go:build !linux

package osio

// IsolateThread: outside Linux there are no per-thread descriptor tables;
// lanes share the process's, and the caller closes what they opened.
func IsolateThread() bool { return false }
