//go:build linux

package proc

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// MountNS is one mount namespace and a task in it, through which the
// kernel shows that namespace's mount table (Dir/mountinfo) and root
// (Dir/root).
type MountNS struct {
	// Ino is the namespace's inode (what /proc/PID/ns/mnt links to, the
	// identity lsns and findmnt -N go by); 0 when it could not be read.
	Ino uint64
	// PID is the process the task belongs to; Dir is the task's directory
	// under the proc root: "self", "1234", or "1234/task/1240" for a thread
	// that unshared its mount namespace alone.
	PID  int
	Dir  string
	Self bool
}

// MountNamespaces lists every mount namespace a task of this machine is
// in, this process's first, each once (by the namespace's inode, as
// findmnt -N and lsns do), with the first task found in it. A container, a
// systemd unit with PrivateMounts= and `unshare -m` each have one, and a
// mount made there is in no other's table. A namespace no task is in (kept
// only by a bind mount of its nsfs file or an open descriptor) is not
// listed: its table can be read only by entering it. root is /proc, or a
// test's fake tree; when the tree has no namespace links only this
// process's table is listed.
func MountNamespaces(root string) []MountNS {
	self := MountNS{PID: os.Getpid(), Dir: "self", Self: true}
	selfIno, ok := nsIno(filepath.Join(root, "self"))
	if !ok {
		return []MountNS{self}
	}
	self.Ino = selfIno
	list := []MountNS{self}
	seen := map[uint64]bool{selfIno: true}
	procs, err := os.ReadDir(root)
	if err != nil {
		return list
	}
	add := func(pid int, dir string) {
		ino, ok := nsIno(filepath.Join(root, dir))
		if ok && !seen[ino] {
			seen[ino] = true
			list = append(list, MountNS{Ino: ino, PID: pid, Dir: dir})
		}
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		add(pid, p.Name())
		// A thread may unshare its mount namespace alone; its process's
		// link shows only the leader's.
		tasks, _ := os.ReadDir(filepath.Join(root, p.Name(), "task"))
		for _, t := range tasks {
			if t.Name() != p.Name() {
				add(pid, filepath.Join(p.Name(), "task", t.Name()))
			}
		}
	}
	return list
}

// nsIno is the inode of the mount namespace the task at dir is in.
func nsIno(dir string) (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Stat(filepath.Join(dir, "ns", "mnt"), &st); err != nil {
		return 0, false
	}
	return st.Ino, true
}
