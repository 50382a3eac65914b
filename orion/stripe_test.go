package orion

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStripe: -stripe sets -simulate raid0's stripe depth, the volume is
// laid out in it and the result records it; a stripe an I/O would cross
// is refused; without raid0 it changes nothing and the notes say so, as
// they say -hugenotneeded was read.
func TestStripe(t *testing.T) {
	dir := t.TempDir()
	var lines string
	for _, n := range []string{"a.img", "b.img", "c.img"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, make([]byte, 4<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		lines += p + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "t.lun"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := func(sim string, stripe int) Options {
		o := DefaultOptions(RunAdvanced)
		o.TestName, o.OutputDir, o.Direct = filepath.Join(dir, "t"), "", false
		o.Matrix, o.NumSmall, o.NumLarge, o.Simulate, o.Stripe, o.HugeNotNeeded = MatrixPoint, 2, 1, sim, stripe, true
		return o
	}
	for _, tc := range []struct {
		stripe    int
		wantBytes int64 // the volume's size: 3 LUNs, each cut to whole stripes
	}{
		{0, 3 * 4 << 20},    // ASM's 1 MB
		{3072, 3 * 3 << 20}, // 3 MiB stripes: one a LUN
		{2048, 3 * 4 << 20},
	} {
		tt, err := Prepare(opts("raid0", tc.stripe))
		if err != nil {
			t.Fatalf("-stripe %d: %v", tc.stripe, err)
		}
		want := int64(max(tc.stripe, 1024)) << 10
		if tg := tt.target(); tg.volume == nil || tg.volume.Layout != (raid0{Stripe: want}) || tg.size != tc.wantBytes {
			t.Errorf("-stripe %d: volume %+v of %d bytes; want stripes of %d, %d bytes", tc.stripe, tg.volume, tg.size, want, tc.wantBytes)
		}
		if d := tt.describe(); d.StripeKiB != int(want>>10) {
			t.Errorf("-stripe %d: the result records %d KiB", tc.stripe, d.StripeKiB)
		}
	}
	if _, err := Prepare(opts("raid0", 512)); !isUsageFor(err, "-size_large") {
		t.Errorf("-stripe 512 with 1024 KiB large I/Os: %v, want a refusal naming -size_large", err)
	}
	o := opts("concat", 1024)
	notes := o.Notes()
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "-stripe 1024 was read and changes nothing") || !strings.HasPrefix(notes[1], "-hugenotneeded was read") {
		t.Errorf("notes %q", notes)
	}
	o = opts("raid0", 1024)
	if notes := o.Notes(); slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "-stripe") }) {
		t.Errorf("notes %q: -stripe with raid0 does change the layout", notes)
	}
}
