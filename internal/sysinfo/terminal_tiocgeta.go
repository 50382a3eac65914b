//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package sysinfo

import "golang.org/x/sys/unix"

// ioctlReadTermios is the request that reads terminal attributes here.
const ioctlReadTermios = unix.TIOCGETA
