//go:build windows

// Command ctrlevent starts a program and, once a clyde run directory
// (clyde.*) shows up in WATCHDIR, delivers a console control event to it the
// way Windows does: a thread started in the target at kernel32's CtrlRoutine
// with the event as its argument (what the console host does on ^C, ^Break
// and the window closing). It then waits for the program and exits with its
// exit code: the Wine tests' way of pressing ^Break or closing the console
// on clyde, since a Wine console started from a pipe has no window to close
// and GenerateConsoleCtrlEvent fails there.
//
//	ctrlevent ctrlc|break|close WATCHDIR PROGRAM [ARGS...]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/sys/windows"
)

var (
	kernel32               = windows.NewLazySystemDLL("kernel32.dll")
	procCtrlRoutine        = kernel32.NewProc("CtrlRoutine")
	procCreateRemoteThread = kernel32.NewProc("CreateRemoteThread")
)

func main() {
	events := map[string]uintptr{"ctrlc": windows.CTRL_C_EVENT, "break": windows.CTRL_BREAK_EVENT, "close": windows.CTRL_CLOSE_EVENT}
	event, ok := events[argOr(1)]
	if !ok || len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: ctrlevent ctrlc|break|close WATCHDIR PROGRAM [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[3], os.Args[4:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := waitForRun(os.Args[2], 60*time.Second); err != nil {
		fmt.Fprintf(os.Stderr, "ctrlevent: %v\n", err)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.Exit(3)
	}
	if err := deliver(uint32(cmd.Process.Pid), event); err != nil {
		fmt.Fprintf(os.Stderr, "ctrlevent: %s: %v\n", os.Args[1], err)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.Exit(3)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// waitForRun waits for a clyde.* entry in dir, then a little more, so the
// event lands in the middle of a phase.
func waitForRun(dir string, limit time.Duration) error {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "clyde.") {
				time.Sleep(500 * time.Millisecond)
				return nil
			}
		}
	}
	return fmt.Errorf("no clyde run directory appeared in %s within %v", dir, limit)
}

func argOr(i int) string {
	if i < len(os.Args) {
		return os.Args[i]
	}
	return ""
}

// deliver starts CtrlRoutine(event) on a new thread of process pid.
func deliver(pid uint32, event uintptr) error {
	if err := procCtrlRoutine.Find(); err != nil {
		return err
	}
	const access = windows.PROCESS_CREATE_THREAD | windows.PROCESS_QUERY_INFORMATION | windows.PROCESS_VM_OPERATION |
		windows.PROCESS_VM_WRITE | windows.PROCESS_VM_READ
	h, err := windows.OpenProcess(access, false, pid)
	if err != nil {
		return fmt.Errorf("OpenProcess: %w", err)
	}
	defer windows.CloseHandle(h)
	t, _, err := procCreateRemoteThread.Call(uintptr(h), 0, 0, procCtrlRoutine.Addr(), event, 0, 0)
	if t == 0 {
		return fmt.Errorf("CreateRemoteThread: %w", err)
	}
	windows.CloseHandle(windows.Handle(t))
	return nil
}
