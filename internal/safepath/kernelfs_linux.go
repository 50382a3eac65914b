//go:build linux

package safepath

import (
	"os"

	"golang.org/x/sys/unix"
)

// Magics of kernel filesystems that x/sys/unix does not name.
const (
	configfsMagic = 0x62656570 // "beep", include/uapi/linux/magic.h
	fusectlMagic  = 0x65735543
)

// KernelFS names the kernel-interface filesystem path is on (procfs, sysfs
// and their kin), "" for one that holds files. Their regular files report
// a size of 0 (or a page) whatever they hold, and reading one is asking
// the kernel something: /proc/kmsg blocks until the kernel logs a line and
// takes that line from the system log. No result is written there, no
// input read, no target measured: this is the one rule for all three.
func KernelFS(path string) string {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return ""
	}
	return kernelFSName(st.Type)
}

// KernelFSOf is KernelFS for an open file: what was opened, whatever the
// name leads to now.
func KernelFSOf(f *os.File) string { return KernelFSOfFd(int(f.Fd())) }

// KernelFSOfFd is KernelFS for a descriptor (a directory clyde holds open,
// such as the parent of a private directory it is about to make).
func KernelFSOfFd(fd int) string {
	var st unix.Statfs_t
	if fd < 0 || unix.Fstatfs(fd, &st) != nil {
		return ""
	}
	return kernelFSName(st.Type)
}

func kernelFSName[T int32 | int64 | uint32](magic T) string {
	switch uint32(magic) { // int32 on 386 and arm, where some magics do not fit
	case unix.PROC_SUPER_MAGIC:
		return "procfs"
	case unix.SYSFS_MAGIC:
		return "sysfs"
	case unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC:
		return "cgroupfs"
	case unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC:
		return "debugfs"
	case configfsMagic:
		return "configfs"
	case unix.SECURITYFS_MAGIC, unix.BPF_FS_MAGIC, unix.EFIVARFS_MAGIC, unix.PSTOREFS_MAGIC, unix.BINFMTFS_MAGIC,
		unix.SELINUX_MAGIC, unix.SMACK_MAGIC, unix.NSFS_MAGIC, unix.PID_FS_MAGIC, unix.RDTGROUP_SUPER_MAGIC,
		unix.XENFS_SUPER_MAGIC, unix.USBDEVICE_SUPER_MAGIC, unix.BINDERFS_SUPER_MAGIC, unix.OPENPROM_SUPER_MAGIC, fusectlMagic:
		return "a kernel filesystem"
	}
	return ""
}
