// Package preflight holds the checks the engines make before they write
// anything: that the directory they were given is a writable directory, and
// that its filesystem has the room and the inodes a run needs at its peak.
package preflight

import (
	"fmt"
	"os"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// Need is what a run occupies on one filesystem at its peak.
type Need struct {
	Bytes  uint64
	Inodes uint64
}

// Dir checks that dir exists, is a directory, is not on a kernel
// interface (procfs, sysfs, cgroupfs and their kin: a directory made in
// cgroupfs is a new control group, which no unlink removes), and that this
// process may create files in it (a read-only mount included, where the
// system can say so in advance). flag names the option in the usage error.
func Dir(flag, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return result.Usagef(flag, "%v", err)
	case !fi.IsDir():
		return result.Usagef(flag, "%s is not a directory", dir)
	}
	if k := safepath.KernelFS(dir); k != "" {
		return result.Usagef(flag, "%s is on %s, a kernel interface, not a filesystem to test; give a directory on one that holds files", dir, k)
	}
	if err := writable(dir); err != nil {
		return &result.UsageError{Msg: fmt.Sprintf("preflight: %s (%s) is not writable: %v", dir, flag, err)}
	}
	return nil
}

// Advice is what a refusal tells the user to change: for space, and for
// inodes.
type Advice struct{ Space, Inodes string }

// Space refuses need where the filesystem holding dir has less free space or
// fewer free inodes, in one line: "preflight: WHAT needs N in WHERE, only M
// is free; ADVICE". A refusal is a usage error (exit 2), as every refusal
// before a run is: nothing was created and the command must change. Without
// figures (a filesystem that gives none) nothing is refused.
func Space(dir, what, where string, need Need, advice Advice) error {
	sp, err := Stat(dir)
	if err != nil {
		return nil
	}
	if need.Bytes > sp.AvailBytes {
		return &result.UsageError{Msg: fmt.Sprintf("preflight: %s needs %s in %s, only %s is free; %s",
			what, humanize.IBytes(need.Bytes), where, humanize.IBytes(sp.AvailBytes), advice.Space)}
	}
	if sp.InodesKnown && need.Inodes > sp.FreeInodes {
		return &result.UsageError{Msg: fmt.Sprintf("preflight: %s needs %s inodes in %s, only %s are free; %s",
			what, humanize.Comma(int64(need.Inodes)), where, humanize.Comma(int64(sp.FreeInodes)), advice.Inodes)}
	}
	return nil
}
