//go:build linux

package safepath

import "golang.org/x/sys/unix"

// KernelFS names the kernel-interface filesystem path is on (procfs, sysfs
// and their kin), "" for one that holds files. Their regular files report
// a size of 0 whatever they hold, and are not files a result can replace.
func KernelFS(path string) string {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return ""
	}
	switch uint32(st.Type) { // int32 on 386 and arm, where some magics do not fit
	case unix.PROC_SUPER_MAGIC:
		return "procfs"
	case unix.SYSFS_MAGIC:
		return "sysfs"
	case unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC:
		return "cgroupfs"
	case unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC:
		return "debugfs"
	case unix.SECURITYFS_MAGIC, unix.BPF_FS_MAGIC, unix.EFIVARFS_MAGIC:
		return "a kernel filesystem"
	}
	return ""
}
