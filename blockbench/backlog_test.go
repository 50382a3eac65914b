package blockbench

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/verify"
)

// TestBufferPattern: fio's buffer_pattern repeated over a buffer, and in
// the part of each 512-byte chunk buffer_compress_percentage leaves.
func TestBufferPattern(t *testing.T) {
	buf := make([]byte, 1024)
	fillBuffer(buf, Buffer{Kind: BufferPattern, Pattern: "\xde\xad\xbe"}, rand.NewPCG(1, 2))
	if want := bytes.Repeat([]byte("\xde\xad\xbe"), 342)[:1024]; !bytes.Equal(buf, want) {
		t.Errorf("pattern buffer %x...", buf[:12])
	}
	fillBuffer(buf, Buffer{Kind: BufferCompressible, CompressPct: 50, Pattern: "ab"}, rand.NewPCG(1, 2))
	for _, chunk := range [][]byte{buf[:512], buf[512:]} {
		if !bytes.Equal(chunk[256:], bytes.Repeat([]byte("ab"), 128)) || bytes.Equal(chunk[:256], bytes.Repeat([]byte("ab"), 128)) {
			t.Errorf("compressible chunk: random %x..., pattern %q...", chunk[:8], chunk[256:264])
		}
	}
}

// TestVerifyPattern: verify=pattern writes the pattern with each block's
// offset and checks it byte for byte; a checksum's blocks carry the
// pattern after their header.
func TestVerifyPattern(t *testing.T) {
	pattern, offsets := []byte("ab\x00\x00\x00\x00\x00\x00\x00\x00"), []int{2}
	w := verifyWorkload(t, VerifyPatternOnly)
	w.VerifyPattern, w.VerifyPatternOffsets = pattern, offsets
	var block []byte
	withBeforeVerify(t, func(t *testing.T, h osio.File) { block = pread(t, h, 3*verifyBS) })
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs[0].Read.TotalIOs != verifyBlocks {
		t.Errorf("%d blocks read back, want %d", res.Jobs[0].Read.TotalIOs, verifyBlocks)
	}
	if want := []byte("ab\x00\x30\x00\x00\x00\x00\x00\x00ab\x00\x30"); !bytes.HasPrefix(block, want) {
		t.Errorf("block 3 starts %x, want %x (the offset 12288 at byte 2 of every repeat)", block[:14], want)
	}
	withBeforeVerify(t, func(t *testing.T, h osio.File) {
		b := pread(t, h, 5*verifyBS)
		b[100] ^= 0x11
		pwrite(t, h, b, 5*verifyBS)
	})
	_, err = RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Bad != 1 || !strings.Contains(ve.Lines[0], "pattern: verify failed at offset 20480, length 4096: got pattern '70', wanted '61'. Bad bits 2, at block offset 100") {
		t.Errorf("got %v, want the bad byte named as fio names it", err)
	}
	w = verifyWorkload(t, VerifyMD5)
	w.VerifyPattern, w.VerifyPatternOffsets = pattern, offsets
	withBeforeVerify(t, func(t *testing.T, h osio.File) { block = pread(t, h, 0) })
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}}); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, verifyBS)
	verify.New(verify.Spec{Kind: VerifyPatternOnly, Size: verifyBS, Interval: verifyBS, Seeds: newRand(1, 1), Pattern: pattern, PatternOffsets: offsets}).Fill(want, 0, 0)
	if hdr := VerifyMD5.HeaderSize(); block[0] != 0xca || !bytes.Equal(block[hdr:], want[hdr:]) {
		t.Errorf("md5 block %x: want the header, then the pattern", block[:hdr+20])
	}
}

// TestVerifyBacklog: verify_backlog reads every block back once, between
// the writes, then the rest; a bad block found on the way ends the job.
func TestVerifyBacklog(t *testing.T) {
	for _, batch := range []int{0, 3, 40} {
		w := verifyWorkload(t, VerifyCRC32C)
		w.VerifyBacklog, w.VerifyBacklogBatch = 8, batch
		blocks := int64(verifyBlocks)
		if batch == 0 {
			// 20 blocks: 8 written, 8 read back, 8 and 8, 4 written, the
			// last 4 read by the verify pass (a batch of 1 would read
			// one back after each write from the 9th on: 12).
			blocks = 20
			w.Size = blocks * verifyBS
		}
		var during int
		beforeBacklogRead = func(*worker, int64) { during++ }
		res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
		beforeBacklogRead = nil
		if err != nil {
			t.Fatal(err)
		}
		j := res.Jobs[0]
		if j.Write.TotalIOs != blocks || j.Read.TotalIOs != blocks || during == 0 || during > int(blocks) {
			t.Errorf("batch %d: %d writes, %d reads, %d of them during the writes", batch, j.Write.TotalIOs, j.Read.TotalIOs, during)
		}
		if batch == 0 && during != 16 {
			t.Errorf("backlog 8 of 20 blocks: %d read back during the writes, want 16", during)
		}
	}
	w := verifyWorkload(t, VerifyCRC32C)
	w.VerifyBacklog = 4
	beforeBacklogRead = func(w *worker, off int64) {
		if off == 2*verifyBS {
			pwrite(t, w.h, make([]byte, verifyBS), off)
		}
	}
	t.Cleanup(func() { beforeBacklogRead = nil })
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	var ve *VerifyError
	if !errors.As(err, &ve) || !ve.Backlog || !strings.Contains(err.Error(), "bad magic header 0") {
		t.Fatalf("got %v, want the zeroed block caught during the writes", err)
	}
	if n := res.Jobs[0].Write.TotalIOs; n >= verifyBlocks {
		t.Errorf("%d writes: the job goes on after a bad block", n)
	}
}

// TestVerifyBacklogRefusals: what verify_backlog is not run with.
func TestVerifyBacklogRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(w *Workload)
		want string
	}{
		{"a queue", func(w *Workload) { w.IOEngine, w.IODepth = EngineIOUring, 8 }, "one I/O in flight"},
		{"norandommap", func(w *Workload) { w.RW, w.RandomMap = RandWrite, false }, "norandommap"},
		{"verify=pattern without one", func(w *Workload) { w.Verify, w.VerifyBacklog = VerifyPatternOnly, 0 }, "give one"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := verifyWorkload(t, VerifyMD5)
			w.VerifyBacklog = 4
			c.edit(&w)
			if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want a refusal saying %q", err, c.want)
			}
		})
	}
}

// TestVerifyHeadersOnly: with do_verify=0 the blocks carry their headers
// over several loops, or for a runtime, as fio writes them, and nothing
// is read back.
func TestVerifyHeadersOnly(t *testing.T) {
	for _, edit := range []func(w *Workload){
		func(w *Workload) { w.Loops = 2 },
		func(w *Workload) { w.TimeBased, w.Runtime = true, 50*MinRuntime },
	} {
		w := verifyWorkload(t, VerifyMD5)
		w.NoVerifyPass = true
		edit(&w)
		res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
		if err != nil {
			t.Fatal(err)
		}
		if j := res.Jobs[0]; j.Read.TotalIOs != 0 || j.Write.TotalIOs < verifyBlocks {
			t.Errorf("loops %d, time-based %v: %d reads, %d writes", w.Loops, w.TimeBased, j.Read.TotalIOs, j.Write.TotalIOs)
		}
	}
}
