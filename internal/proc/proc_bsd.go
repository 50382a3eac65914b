//go:build unix && !linux

package proc

// BootID and StartTicks are read on Linux only; elsewhere a reused pid keeps
// a leftover marker looking alive until that process ends.
func BootID() string        { return "" }
func StartTicks(int) uint64 { return 0 }

// Parent and Running read /proc on Linux; elsewhere no parent is known
// and a process that exists runs.
func Parent(int) (int, bool) { return 0, false }
func Running(pid int) bool   { return Exists(pid) }
