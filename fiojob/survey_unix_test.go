//go:build unix

package fiojob

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/proc"
)

// killTreeOnCancel ends fio and every process it started when cmd's
// context does. fio forks a process per job and each job calls setsid,
// so the job processes leave fio's process group: killing the group
// alone left a hung job process holding fio's output pipe, and the test
// waited on it until go test's timeout (CI, the offload case). The
// descendants are found through /proc's parent links before any is
// killed (a killed parent's children move to init); where there is no
// /proc the group is all there is to kill. WaitDelay bounds the wait
// for anything that still escapes.
func killTreeOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		pids := descendants(cmd.Process.Pid)
		err := unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		for _, pid := range pids {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		return err
	}
	cmd.WaitDelay = 10 * time.Second
}

// descendants lists the processes below root, by their parents.
func descendants(root int) []int {
	ents, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if ppid, ok := proc.Parent(pid); ok {
				children[ppid] = append(children[ppid], pid)
			}
		}
	}
	var out []int
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
