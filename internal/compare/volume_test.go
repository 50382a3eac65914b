package compare

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

func TestVolumeOf(t *testing.T) {
	if runtime.GOOS == "windows" {
		clydetest.Skip(t, "POSIX paths")
	}
	for _, tc := range []struct{ mount, target, want string }{
		{"/mnt/usb", "/mnt/usb/bench/f", "U:/bench/f"},
		{"/mnt/usb", "/mnt/usb", "U:/"},
		{"/", "/srv/f", "U:/srv/f"},
		{"/mnt/usb", "/mnt/usbx/f", ""},
		{"/mnt/usb", "/srv/f", ""},
	} {
		if got := VolumeOf("U", tc.mount, tc.target); got != tc.want {
			t.Errorf("VolumeOf(%q, %q) = %q, want %q", tc.mount, tc.target, got, tc.want)
		}
	}
}

// TestVolumeTellsClonesApart is item 13 of issue 31: two filesystems with
// one UUID (a dd or cp clone) on two devices, or made at two times, are two
// volumes; a result without a device (one saved before clyde recorded it,
// a run without root) has none, and is found by its path alone.
func TestVolumeTellsClonesApart(t *testing.T) {
	if runtime.GOOS == "windows" {
		clydetest.Skip(t, "POSIX paths")
	}
	run := func(uuid, device string, created time.Time) *Run {
		p := result.Provenance{Filesystem: result.Filesystem{Path: "/mnt/a/d", MountPoint: "/mnt/a", UUID: uuid, DeviceID: device, Created: created}}
		return &Run{FS: &result.FS{Provenance: p}}
	}
	made := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	orig := run("U", "loop:/a.img", made).Volume()
	if orig != "U+"+fmt.Sprint(made.Unix())+"@loop:/a.img:/d" {
		t.Fatalf("Volume = %q", orig)
	}
	for _, tc := range []struct {
		name string
		r    *Run
	}{
		{"a clone on another device", run("U", "loop:/b.img", made)},
		{"one UUID given to two filesystems", run("U", "loop:/a.img", made.Add(time.Second))},
		{"another filesystem", run("V", "loop:/a.img", made)},
	} {
		if v := tc.r.Volume(); v == orig || v == "" {
			t.Errorf("%s: Volume %q, want one of its own", tc.name, v)
		}
	}
	if v := run("U", "", time.Time{}).Volume(); v != "" {
		t.Errorf("a result without a device: Volume %q, want none", v)
	}
}
