package compare

import (
	"runtime"
	"testing"
)

func TestVolumeOf(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
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
