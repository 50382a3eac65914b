//go:build unix

package fiojob

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// killGroupOnCancel runs cmd in a process group of its own and ends the
// whole group when its context does: fio forks a process per job, and
// killing fio alone leaves them running.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return unix.Kill(-cmd.Process.Pid, unix.SIGKILL) }
}
