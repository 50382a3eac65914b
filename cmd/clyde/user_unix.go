//go:build unix

package main

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"

	"github.com/clydebench/clyde/result"
)

// switchUser drops root privileges to user[:group], as bonnie++ -u does. It
// uses package syscall on purpose: its Setuid/Setgid change every thread of
// the process, where x/sys/unix's change only the calling thread.
func switchUser(spec, group string) error {
	if spec == "" && group == "" {
		return nil
	}
	if os.Geteuid() != 0 {
		return result.Usagef("-u", "switching user needs root; run without -u")
	}
	name, grp, _ := strings.Cut(spec, ":")
	if group != "" {
		grp = group
	}
	uid, gid := -1, -1
	if name != "" {
		u, err := user.Lookup(name)
		if err != nil {
			if u, err = user.LookupId(name); err != nil {
				return result.Usagef("-u", "unknown user %q", name)
			}
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
	}
	if grp != "" {
		g, err := user.LookupGroup(grp)
		if err != nil {
			if g, err = user.LookupGroupId(grp); err != nil {
				return result.Usagef("-g", "unknown group %q", grp)
			}
		}
		gid, _ = strconv.Atoi(g.Gid)
	}
	if gid >= 0 {
		if err := syscall.Setgroups([]int{gid}); err != nil {
			return fmt.Errorf("setgroups: %w", err)
		}
		if err := syscall.Setgid(gid); err != nil {
			return fmt.Errorf("setgid %d: %w", gid, err)
		}
	}
	if uid >= 0 {
		if err := syscall.Setuid(uid); err != nil {
			return fmt.Errorf("setuid %d: %w", uid, err)
		}
	}
	return nil
}
