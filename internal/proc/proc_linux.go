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
	b, err := os.ReadFile(filepath.Join(Root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	n, _ := parseStartTicks(b)
	return n
}

// parseStartTicks reads field 22 (starttime) of /proc/PID/stat. The command
// name, field 2, is in parentheses and may hold spaces and parentheses
// itself, so fields are counted from the last ')'.
func parseStartTicks(b []byte) (uint64, bool) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return 0, false
	}
	fields := strings.Fields(string(b[end+1:]))
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
