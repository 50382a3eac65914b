// Package proc names a process exactly enough to tell, later and from
// another process, whether the run that left a marker is still going: its
// pid and host, and on Linux the boot it ran in and its start time, so that
// a pid handed to a new process (or a reboot) is not taken for that run.
package proc

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/clydebench/clyde/internal/sysinfo"
)

// Root is /proc; tests point it at a fake tree.
var Root = "/proc"

// ID is a process as a marker records it.
type ID struct {
	PID  int    `json:"pid"`
	Host string `json:"host"`
	// BootID and StartTicks (Linux) name the process exactly: a pid alive
	// after a reboot, or with another start time, belongs to someone else.
	BootID     string    `json:"boot_id,omitempty"`
	StartTicks uint64    `json:"start_ticks,omitempty"`
	Start      time.Time `json:"start"`
}

// Self is this process.
func Self() ID {
	pid := os.Getpid()
	return ID{PID: pid, Host: Host(), BootID: BootID(), StartTicks: StartTicks(pid), Start: time.Now().UTC()}
}

// Host names this machine in markers; a host without a name gets one no
// real host has, so its markers still parse.
func Host() string {
	if h := sysinfo.Hostname(); h != "" {
		return h
	}
	return "(unnamed host)"
}

// State is what can be told of the process a marker names.
type State int

// The states.
const (
	Dead      State = iota // this host, and the process is gone
	Alive                  // this host, and the process still runs
	Elsewhere              // another host: this one cannot tell
)

// State says whether id still runs.
func (id ID) State() State {
	if id.Host != Host() {
		return Elsewhere
	}
	if id.BootID != "" {
		if b := BootID(); b != "" && b != id.BootID {
			return Dead // the machine rebooted since
		}
	}
	if !Exists(id.PID) {
		return Dead
	}
	if id.StartTicks != 0 {
		if now := StartTicks(id.PID); now != 0 && now != id.StartTicks {
			return Dead // the pid now belongs to another process
		}
	}
	return Alive
}

// Plausible says whether id can be the record of a real run: a pid, a host
// and a start time that is set, after 1970 and not in the future. A marker
// planted with a start of 0 (or one to come) is not believed, so nothing is
// removed on its word.
func (id ID) Plausible(now time.Time) error {
	switch {
	case id.PID <= 0:
		return fmt.Errorf("pid %d", id.PID)
	case id.Host == "":
		return errors.New("no host")
	case id.Start.IsZero() || id.Start.Unix() <= 0:
		return errors.New("no start time")
	case id.Start.After(now.Add(time.Minute)):
		return fmt.Errorf("start time %s is in the future", id.Start.UTC().Format(time.RFC3339))
	}
	return nil
}
