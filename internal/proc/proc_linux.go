//go:build linux

package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// BootID names this boot of the machine; a marker from another boot is
// from a run that cannot still be going, whatever process has its pid now.
func BootID() string {
	b, err := os.ReadFile(filepath.Join(Root, "sys", "kernel", "random", "boot_id"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// StartTicks is when pid started, in clock ticks since boot: with the
// boot id it names one process exactly, so a pid handed to a new process
// is not taken for the run that wrote a marker. 0 when unknown.
func StartTicks(pid int) uint64 {
	n, _ := parseStartTicks(readStat(pid))
	return n
}

// Parent is pid's parent process (field 4 of /proc/PID/stat); false when
// pid is gone or the kernel does not say.
func Parent(pid int) (int, bool) {
	fields := statFields(pid)
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

// Running reports whether pid is a process that has not ended: one that
// ended and waits for its parent to reap it (a zombie) has.
func Running(pid int) bool {
	fields := statFields(pid)
	return len(fields) > 0 && fields[0] != "Z"
}

// statFields reads /proc/PID/stat from field 3 (state) on; nil when pid
// is gone.
func statFields(pid int) []string { return fieldsAfterName(readStat(pid)) }

// readStat is /proc/PID/stat under Root, a file of the kernel's own (no
// link or FIFO a user could plant there); nil when pid is gone.
func readStat(pid int) []byte {
	b, err := os.ReadFile(filepath.Join(Root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	return b
}

// fieldsAfterName splits a /proc/PID/stat line after its command name,
// field 2, which is in parentheses and may hold spaces and parentheses
// itself: fields are counted from the last ')'. nil when there is none.
func fieldsAfterName(b []byte) []string {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return nil
	}
	return strings.Fields(string(b[end+1:]))
}

// parseStartTicks reads field 22 (starttime) of /proc/PID/stat.
func parseStartTicks(b []byte) (uint64, bool) {
	fields := fieldsAfterName(b)
	const startField = 22 - 3 // fields after the name start at field 3 (state)
	if len(fields) <= startField {
		return 0, false
	}
	n, err := strconv.ParseUint(fields[startField], 10, 64)
	if err != nil || n == 0 {
		return 0, false
	}
	return n, true
}
