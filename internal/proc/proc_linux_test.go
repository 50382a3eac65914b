//go:build linux

package proc

import (
	"os"
	"testing"
)

// TestStateLinux: a live pid is the run's only while boot id and start time
// match; after a reboot or with the pid handed to another process the run is
// over.
func TestStateLinux(t *testing.T) {
	me := Self()
	if me.BootID == "" || me.StartTicks == 0 {
		t.Fatalf("boot id %q, start ticks %d: want both read from /proc", me.BootID, me.StartTicks)
	}
	const deadPID = 1<<31 - 2
	cases := []struct {
		name string
		edit func(m *ID)
		want State
	}{
		{"this process", func(*ID) {}, Alive},
		{"pid handed to another process", func(m *ID) { m.StartTicks++ }, Dead},
		{"another boot", func(m *ID) { m.BootID = "00000000-0000-0000-0000-000000000000" }, Dead},
		{"no start time recorded", func(m *ID) { m.StartTicks = 0 }, Alive},
		{"dead pid", func(m *ID) { m.PID = deadPID }, Dead},
		{"another host", func(m *ID) { m.Host += ".elsewhere" }, Elsewhere},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := me
			tc.edit(&m)
			if got := m.State(); got != tc.want {
				t.Errorf("state %d, want %d", got, tc.want)
			}
		})
	}
	if me.PID != os.Getpid() {
		t.Fatalf("Self pid %d", me.PID)
	}
}
