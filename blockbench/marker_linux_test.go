//go:build linux

package blockbench

import (
	"os"
	"testing"
)

// TestMarkerStateLinux: a live pid is the run's only while boot id and
// start time match; after a reboot or with the pid handed to another
// process the run is over.
func TestMarkerStateLinux(t *testing.T) {
	me := marker{Host: newMarker("f", entryInfo{}).Host, PID: os.Getpid(), BootID: bootID(), StartTicks: processStartTicks(os.Getpid())}
	if me.BootID == "" || me.StartTicks == 0 {
		t.Fatalf("boot id %q, start ticks %d: want both read from /proc", me.BootID, me.StartTicks)
	}
	cases := []struct {
		name string
		edit func(m *marker)
		want runState
	}{
		{"this process", func(*marker) {}, runAlive},
		{"pid handed to another process", func(m *marker) { m.StartTicks++ }, runDead},
		{"another boot", func(m *marker) { m.BootID = "00000000-0000-0000-0000-000000000000" }, runDead},
		{"no start time recorded", func(m *marker) { m.StartTicks = 0 }, runAlive},
		{"dead pid", func(m *marker) { m.PID = deadPID }, runDead},
		{"another host", func(m *marker) { m.Host += ".elsewhere" }, runElsewhere},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := me
			tc.edit(&m)
			if got := m.state(); got != tc.want {
				t.Errorf("state %d, want %d", got, tc.want)
			}
		})
	}
}
