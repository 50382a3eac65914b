package blockbench

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// filledLoopDevice is a loop device of size bytes (safety_linux_test.go)
// holding 0xab in every byte.
func filledLoopDevice(t *testing.T, size int) string {
	t.Helper()
	dev := loopDevice(t, int64(size), false)
	f, err := os.OpenFile(dev, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte{0xab}, size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	return dev
}

// TestTrimOnLoopDevice: every block of the region is discarded once, counted
// in fio's trim direction, and reads back as zeros (a loop device discards
// by punching a hole in its image); the rest of the device is untouched.
func TestTrimOnLoopDevice(t *testing.T) {
	const size, region, off, bs = 8 << 20, 2 << 20, 1 << 20, 64 << 10
	for _, rw := range []RW{Trim, RandTrim} {
		t.Run(string(rw), func(t *testing.T) {
			dev := filledLoopDevice(t, size)
			w := Workload{Name: "t", Filename: dev, RW: rw, BS: bs, Size: region, Offset: off, IODepth: 1, NumJobs: 1,
				IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 3, RandomMap: true}
			if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}}); err == nil {
				t.Fatal("trimmed a device without DestroyData")
			}
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, DestroyData: true})
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			if j.Trim.TotalIOs != region/bs || j.Trim.IOBytes != region || j.Write.TotalIOs != 0 || j.Read.TotalIOs != 0 || j.Trim.Lat.N != region/bs {
				t.Errorf("trim %d I/Os, %d bytes, lat N %d; write %d, read %d; want %d trims of %d bytes only",
					j.Trim.TotalIOs, j.Trim.IOBytes, j.Trim.Lat.N, j.Write.TotalIOs, j.Read.TotalIOs, region/bs, region)
			}
			got, err := os.ReadFile(dev)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[off:off+region], make([]byte, region)) {
				t.Errorf("the trimmed range does not read back as zeros")
			}
			if !bytes.Equal(got[:off], bytes.Repeat([]byte{0xab}, off)) || !bytes.Equal(got[off+region:], bytes.Repeat([]byte{0xab}, size-off-region)) {
				t.Errorf("a trim reached outside its region")
			}
		})
	}
}
