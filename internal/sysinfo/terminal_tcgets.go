//go:build linux || aix || solaris || zos

package sysinfo

import "golang.org/x/sys/unix"

// ioctlReadTermios is the request that reads terminal attributes here.
const ioctlReadTermios = unix.TCGETS
