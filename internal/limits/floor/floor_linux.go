//go:build linux

package floor

import "syscall"

func read() Facts {
	var f Facts
	readFiles(&f)
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur != ^uint64(0) {
		f.AddressSpace = rl.Cur
		f.AddressInUse = vmSize()
		f.ThreadStack = DefaultThreadStack
		if syscall.Getrlimit(syscall.RLIMIT_STACK, &rl) == nil && rl.Cur != ^uint64(0) {
			f.ThreadStack = rl.Cur
		}
	}
	return f
}

// vmSize is VmSize of /proc/self/status, read with bare system calls; 0
// when it cannot be read (no limit is then guessed at).
func vmSize() uint64 {
	fd, err := syscall.Open("/proc/self/status", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer syscall.Close(fd)
	var buf [4096]byte
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if m <= 0 || err != nil {
			break
		}
		n += m
	}
	return parseVmSize(buf[:n])
}
