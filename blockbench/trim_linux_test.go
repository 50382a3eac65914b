package blockbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// TestTrimWriteOnLoopDevice: trimwrite discards each block of the region
// and then writes it, in sequence, as fio's does (its latency log: a trim
// at 0, a write at 0, a trim at bs...); trims and writes are counted each in
// its own direction; the region holds the written data afterwards and the
// rest of the device is untouched. It is refused without DestroyData, on a
// regular file and on a queueing engine, as every trim is.
func TestTrimWriteOnLoopDevice(t *testing.T) {
	const size, region, off, bs = 8 << 20, 1 << 20, 2 << 20, 64 << 10
	dev := filledLoopDevice(t, size)
	w := Workload{Name: "tw", Filename: dev, RW: TrimWrite, BS: bs, Size: region, Offset: off, IODepth: 1, NumJobs: 1,
		IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 3, RandomMap: true}
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}}); err == nil || !strings.Contains(err.Error(), "destroy-data") {
		t.Fatalf("without DestroyData: %v, want a refusal naming --destroy-data", err)
	}
	file := w
	file.Filename = filepath.Join(t.TempDir(), "f")
	queued := w
	queued.IOEngine, queued.IODepth = EngineIOUring, 4
	for _, bad := range []Workload{file, queued} {
		if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{bad}}, DestroyData: true}); err == nil || !strings.Contains(err.Error(), "trimwrite") {
			t.Errorf("%s on %s: %v, want a refusal naming rw=trimwrite", bad.IOEngine, bad.Filename, err)
		}
	}
	seq := &seqSpec{}
	w.Log = seq
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, DestroyData: true})
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[0]
	if j.Trim.TotalIOs != region/bs || j.Trim.IOBytes != region || j.Write.TotalIOs != region/bs || j.Write.IOBytes != region || j.Read.TotalIOs != 0 {
		t.Errorf("trim %d I/Os of %d bytes, write %d of %d, read %d; want %d trims and %d writes of %d bytes each",
			j.Trim.TotalIOs, j.Trim.IOBytes, j.Write.TotalIOs, j.Write.IOBytes, j.Read.TotalIOs, region/bs, region/bs, region)
	}
	// The completions in order, direction and offset, as the record hook
	// (fio's clat log, in fiojob) sees them.
	var want []string
	for b := int64(0); b < region/bs; b++ {
		o := strconv.FormatInt(off+b*bs, 10)
		want = append(want, "0@"+o, "1@"+o) // the trims stand in the read direction
	}
	if strings.Join(*seq.got, " ") != strings.Join(want, " ") {
		t.Errorf("I/O sequence %v, want each block trimmed then written: %v", *seq.got, want)
	}
	got, err := os.ReadFile(dev)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got[off:off+bs], make([]byte, bs)) || bytes.Equal(got[off:off+bs], bytes.Repeat([]byte{0xab}, bs)) {
		t.Errorf("the region's first block holds neither written data: trimmed and not written, or untouched")
	}
	if !bytes.Equal(got[:off], bytes.Repeat([]byte{0xab}, off)) || !bytes.Equal(got[off+region:], bytes.Repeat([]byte{0xab}, size-off-region)) {
		t.Errorf("a trim or write reached outside its region")
	}
}

// TestRandTrimWriteOnLoopDevice: randtrimwrite trims a block drawn at
// random and then writes that block, as fio 3.33's latency log shows (a
// trim and a write at each offset, the offsets out of order); with the
// random map every block is drawn once a pass (loops=2: twice), and the
// write does not spend a draw. Without the map the pairs still match.
// direct=1: a buffered run that trims a block twice is refused.
func TestRandTrimWriteOnLoopDevice(t *testing.T) {
	const size, region, off, bs = 8 << 20, 1 << 20, 2 << 20, 64 << 10
	dev := filledLoopDevice(t, size)
	for _, randomMap := range []bool{true, false} {
		t.Run(fmt.Sprintf("randommap=%v", randomMap), func(t *testing.T) {
			seq := &seqSpec{}
			w := Workload{Name: "rtw", Filename: dev, RW: RandTrimWrite, BS: bs, Size: region, Offset: off, IODepth: 1, NumJobs: 1,
				IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 3, RandomMap: randomMap, Loops: 2, Direct: true}
			buffered := w
			buffered.Direct = false
			if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{buffered}}, DestroyData: true}); err == nil || !strings.Contains(err.Error(), "direct=1") {
				t.Errorf("buffered with loops=2: %v, want a refusal asking for direct=1 (a second trim of a dirty block fails with EBUSY)", err)
			}
			w.Log = seq
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, DestroyData: true})
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			const n = 2 * region / bs
			if j.Trim.TotalIOs != n || j.Trim.IOBytes != 2*region || j.Write.TotalIOs != n || j.Write.IOBytes != 2*region || j.Read.TotalIOs != 0 {
				t.Errorf("trim %d I/Os of %d bytes, write %d of %d, read %d; want %d trims and %d writes of %d bytes each",
					j.Trim.TotalIOs, j.Trim.IOBytes, j.Write.TotalIOs, j.Write.IOBytes, j.Read.TotalIOs, n, n, 2*region)
			}
			got := *seq.got
			if len(got) != 2*n {
				t.Fatalf("%d completions recorded, want %d", len(got), 2*n)
			}
			passes := [2]map[string]bool{{}, {}}
			inOrder := true
			for i := 0; i < len(got); i += 2 {
				trim, write := got[i], got[i+1]
				at := strings.TrimPrefix(trim, "0@")
				if !strings.HasPrefix(trim, "0@") || write != "1@"+at {
					t.Fatalf("completions %d, %d: %s then %s, want a trim (0@) and a write (1@) of one block", i, i+1, trim, write)
				}
				o, _ := strconv.ParseInt(at, 10, 64)
				if o < off || o >= off+region || (o-off)%bs != 0 {
					t.Errorf("offset %d is not a block of the region [%d, %d)", o, off, off+region)
				}
				inOrder = inOrder && o == off+int64(i/2)%(region/bs)*bs
				passes[i/2/(region/bs)][at] = true
			}
			if inOrder {
				t.Errorf("the blocks came in sequence: %v", got)
			}
			if randomMap && (len(passes[0]) != region/bs || len(passes[1]) != region/bs) {
				t.Errorf("passes touched %d and %d distinct blocks, want all %d in each (the random map)", len(passes[0]), len(passes[1]), region/bs)
			}
		})
	}
}
