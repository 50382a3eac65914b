//go:build unix

package sysinfo

import "golang.org/x/sys/unix"

// Kernel is the OS name and kernel release ("Linux 6.1.0-18-amd64"), since
// I/O results change with the kernel's block layer and page cache; "" when
// uname fails.
func Kernel() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
}
