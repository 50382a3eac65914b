//go:build unix && !linux

package proc

// BootID and StartTicks are read on Linux only; elsewhere a reused pid keeps
// a leftover marker looking alive until that process ends.
func BootID() string        { return "" }
func StartTicks(int) uint64 { return 0 }
