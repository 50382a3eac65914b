//go:build linux

package runlock

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// systemHolder finds who holds a flock on the file id in /proc/locks:
//
//	1: FLOCK  ADVISORY  WRITE 4242 fe:01:1311 0 EOF
//
// (major and minor in hex, the inode in decimal).
func systemHolder(id osio.Identity) Holder {
	f, err := os.Open("/proc/locks")
	if err != nil {
		return Holder{}
	}
	defer f.Close()
	return holderIn(bufio.NewScanner(f), id)
}

func holderIn(sc *bufio.Scanner, id osio.Identity) Holder {
	want := strconv.FormatUint(uint64(unix.Major(id.Dev)), 16) + ":" + strconv.FormatUint(uint64(unix.Minor(id.Dev)), 16) + ":" + strconv.FormatUint(id.Ino, 10)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[1] != "FLOCK" || f[3] != "WRITE" {
			continue
		}
		if !sameDevIno(f[5], want) {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		h := Holder{PID: pid}
		if b, err := os.ReadFile("/proc/" + f[4] + "/cmdline"); err == nil {
			h.Command = strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
		}
		return h
	}
	return Holder{}
}

// sameDevIno compares "maj:min:ino" ignoring leading zeros in maj and min.
func sameDevIno(got, want string) bool {
	g, w := strings.Split(got, ":"), strings.Split(want, ":")
	if len(g) != 3 || len(w) != 3 {
		return false
	}
	for i := range 2 {
		a, err1 := strconv.ParseUint(g[i], 16, 32)
		b, err2 := strconv.ParseUint(w[i], 16, 32)
		if err1 != nil || err2 != nil || a != b {
			return false
		}
	}
	return g[2] == w[2]
}
