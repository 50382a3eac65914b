package blockbench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/blocksize"
	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/verify"
	"github.com/clydebench/clyde/result"
)

const verifyBlocks, verifyBS = 32, 4096

func verifyWorkload(t *testing.T, kind VerifyKind) Workload {
	return Workload{Name: "v", Filename: filepath.Join(testDir(t), "f"), RW: Write, BS: verifyBS, Size: verifyBlocks * verifyBS,
		IODepth: 1, NumJobs: 1, IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, Verify: kind, RandomMap: true}
}

// withBeforeVerify runs damage between the write pass and the verify pass
// for the rest of the test.
func withBeforeVerify(t *testing.T, damage func(t *testing.T, h osio.File)) {
	beforeVerifyPass = func(w *worker) { damage(t, w.h) }
	t.Cleanup(func() { beforeVerifyPass = nil })
}

// TestVerifyPassesCleanRun: every block written is read back and passes,
// and the reads are counted in the read direction as fio counts them.
func TestVerifyPassesCleanRun(t *testing.T) {
	for _, c := range []struct {
		kind   VerifyKind
		rw     RW
		engine Engine
		depth  int
	}{
		{VerifyCRC32C, Write, EnginePsync, 1},
		{VerifyMD5, RandWrite, EnginePsync, 1},
		{VerifyCRC32CIntel, RandWrite, EngineIOUring, 8},
		{VerifyMD5, RandWrite, EngineLibaio, 8},
	} {
		t.Run(string(c.kind)+"/"+string(c.rw)+"/"+string(c.engine), func(t *testing.T) {
			if e, _ := engineByName(c.engine); e.available() != nil {
				clydetest.Skipf(t, "%s not available here", c.engine)
			}
			w := verifyWorkload(t, c.kind)
			w.RW, w.IOEngine, w.IODepth = c.rw, c.engine, c.depth
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Shape: fioShape})
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			if j.Write.IOBytes != w.Size || j.Read.IOBytes != w.Size || j.Read.TotalIOs != verifyBlocks {
				t.Errorf("write %d bytes, read %d bytes in %d I/Os; want %d each, %d reads", j.Write.IOBytes, j.Read.IOBytes, j.Read.TotalIOs, w.Size, verifyBlocks)
			}
			if j.Options.Get("verify") != string(c.kind) {
				t.Errorf("job options verify=%q", j.Options.Get("verify"))
			}
		})
	}
}

func pread(t *testing.T, h osio.File, off int64) []byte {
	buf := make([]byte, verifyBS)
	if _, err := h.Pread(buf, off); err != nil {
		t.Fatal(err)
	}
	return buf
}

func pwrite(t *testing.T, h osio.File, buf []byte, off int64) {
	if _, err := h.Pwrite(buf, off); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyCatchesDamage: a corrupt byte, a block written at another
// offset and a stale block are each caught and named with their offset.
func TestVerifyCatchesDamage(t *testing.T) {
	for _, c := range []struct {
		name   string
		kind   VerifyKind
		damage func(t *testing.T, h osio.File)
		want   string
	}{
		{"corrupt data byte", VerifyCRC32C, func(t *testing.T, h osio.File) {
			b := pread(t, h, 3*verifyBS)
			b[1000] ^= 1
			pwrite(t, h, b, 3*verifyBS)
		}, "crc32c: verify failed at offset 12288, length 4096: expected CRC32C "},
		{"corrupt data byte md5", VerifyMD5, func(t *testing.T, h osio.File) {
			b := pread(t, h, 3*verifyBS)
			b[verifyBS-1] ^= 0x80
			pwrite(t, h, b, 3*verifyBS)
		}, "md5: verify failed at offset 12288, length 4096: expected MD5 "},
		{"corrupt header byte", VerifyCRC32C, func(t *testing.T, h osio.File) {
			b := pread(t, h, 3*verifyBS)
			b[28] ^= 1 // the header's time_nsec
			pwrite(t, h, b, 3*verifyBS)
		}, "verify: bad header crc"},
		{"block written at another offset", VerifyCRC32C, func(t *testing.T, h osio.File) {
			pwrite(t, h, pread(t, h, 5*verifyBS), 2*verifyBS)
		}, "verify: bad header offset 20480, wanted 8192 (a block written at another offset) at offset 8192"},
		{"stale block", VerifyCRC32C, func(t *testing.T, h osio.File) {
			// A whole, valid block for offset 4 from an earlier write:
			// only its seed is not the last one written there.
			old := verify.New(verify.Spec{Kind: VerifyCRC32C, Size: verifyBlocks * verifyBS, Interval: verifyBS, MaxIO: verifyBS, Seeds: newRand(99, 1)})
			b := make([]byte, verifyBS)
			old.Fill(b, 4*verifyBS, 0)
			pwrite(t, h, b, 4*verifyBS)
		}, "verify: bad header rand_seed"},
		{"zeroed block", VerifyMD5, func(t *testing.T, h osio.File) {
			pwrite(t, h, make([]byte, verifyBS), 7*verifyBS)
		}, "verify: bad magic header 0, wanted acca at offset 28672"},
	} {
		t.Run(c.name, func(t *testing.T) {
			withBeforeVerify(t, c.damage)
			_, err := RunPlan(context.Background(), Plan{Groups: []Group{{verifyWorkload(t, c.kind)}}})
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("err %v, want a VerifyError", err)
			}
			if ve.Bad != 1 || ve.Checked != verifyBlocks || !strings.Contains(ve.Lines[0], c.want) {
				t.Errorf("%d bad of %d, lines %q; want 1 of %d, %q", ve.Bad, ve.Checked, ve.Lines, verifyBlocks, c.want)
			}
		})
	}
}

// TestVerifyFatalStopsAtFirst: two bad blocks; verify_fatal stops at the
// first, without it both are counted.
func TestVerifyFatalStopsAtFirst(t *testing.T) {
	for _, fatal := range []bool{false, true} {
		t.Run(map[bool]string{false: "counted", true: "verify_fatal"}[fatal], func(t *testing.T) {
			withBeforeVerify(t, func(t *testing.T, h osio.File) {
				for _, blk := range []int64{2, 6} {
					b := pread(t, h, blk*verifyBS)
					b[2000] ^= 0xff
					pwrite(t, h, b, blk*verifyBS)
				}
			})
			w := verifyWorkload(t, VerifyCRC32C)
			w.VerifyFatal = fatal
			_, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("err %v, want a VerifyError", err)
			}
			wantBad, wantChecked := int64(2), int64(verifyBlocks)
			if fatal {
				wantBad, wantChecked = 1, 3
			}
			if ve.Bad != wantBad || ve.Checked != wantChecked || ve.Fatal != fatal || !strings.Contains(err.Error(), "offset 8192") {
				t.Errorf("%d bad of %d checked (fatal %v): %v; want %d of %d", ve.Bad, ve.Checked, ve.Fatal, err, wantBad, wantChecked)
			}
		})
	}
}

// TestVerifyOnlyWhenAsked: do_verify=0 writes the headers but reads
// nothing back.
func TestVerifyOnlyWhenAsked(t *testing.T) {
	w := verifyWorkload(t, VerifyCRC32C)
	w.NoVerifyPass = true
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Shape: fioShape})
	if err != nil {
		t.Fatal(err)
	}
	if j := res.Jobs[0]; j.Read.TotalIOs != 0 || j.Write.TotalIOs != verifyBlocks || j.Options.Get("do_verify") != "0" {
		t.Errorf("%d reads, %d writes, do_verify=%q; want 0, %d, 0", j.Read.TotalIOs, j.Write.TotalIOs, j.Options.Get("do_verify"), verifyBlocks)
	}
}

func TestVerifyRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(w *Workload)
		want string
	}{
		{"trim job", func(w *Workload) { w.RW = Trim }, "or every block a read job reads"},
		{"read job with a backlog", func(w *Workload) { w.RW, w.VerifyBacklog = Read, 4 }, "this job only reads"},
		{"unknown kind", func(w *Workload) { w.Verify = "sha256" }, "accepted: crc32c"},
		{"block smaller than the header", func(w *Workload) { w.Verify, w.BS, w.Size = VerifyMD5, 32, 32*8 }, "56-byte header"},
		{"time based", func(w *Workload) { w.TimeBased = true }, "without time_based"},
		{"zero buffers", func(w *Workload) { w.Buffer.Kind = BufferZero }, "random data"},
		{"negative fdatasync", func(w *Workload) { w.Fdatasync = -1 }, "--fdatasync"},
		{"more blocks than seeds kept", func(w *Workload) { w.BS, w.Size = 512, 512*(maxVerifyBlocks+1) }, "one seed per block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := verifyWorkload(t, VerifyCRC32C)
			c.edit(&w)
			// As RunPlan checks it: the options, then the resolved region.
			_, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
			if !result.IsUsage(err) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("run: %v; want a refusal with %q", err, c.want)
			}
			if _, serr := os.Lstat(w.Filename); !errors.Is(serr, fs.ErrNotExist) {
				t.Errorf("the refused job left %s", w.Filename)
			}
		})
	}
}

// TestSyncCounts: fio's counts for its sync options on 256 writes (fio 3.33,
// measured): a sync goes before the write after every Nth, so none after
// the last; fdatasync is timed (lat_ns.N) but not in total_ios; end_fsync
// and fsync_on_close are in neither.
func TestSyncCounts(t *testing.T) {
	for _, c := range []struct {
		name             string
		fsync, fdatasync int
		end, onClose     bool
		total, timed     int64
	}{
		{name: "fsync=4", fsync: 4, total: 63, timed: 63},
		{name: "fdatasync=4", fdatasync: 4, total: 0, timed: 63},
		{name: "fdatasync=4 end_fsync", fdatasync: 4, end: true, total: 0, timed: 63},
		{name: "end_fsync", end: true},
		{name: "fsync_on_close", onClose: true},
		{name: "fsync=4 fdatasync=4", fsync: 4, fdatasync: 4, total: 63, timed: 63},
		{name: "fsync=3 fdatasync=4", fsync: 3, fdatasync: 4, total: 85, timed: 85 + 42},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := verifyWorkload(t, VerifyNone)
			w.Size = 256 * verifyBS
			w.Fsync, w.Fdatasync, w.EndFsync, w.FsyncOnClose = c.fsync, c.fdatasync, c.end, c.onClose
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			if j.Sync.TotalIOs != c.total || j.Sync.Lat.N != c.timed || j.Write.TotalIOs != 256 {
				t.Errorf("sync total_ios %d, lat_ns.N %d, writes %d; want %d, %d, 256", j.Sync.TotalIOs, j.Sync.Lat.N, j.Write.TotalIOs, c.total, c.timed)
			}
		})
	}
}

// TestTrimRefusesFile: fio 3.33's BLKDISCARD fails on a regular file; clyde
// refuses one before creating it.
func TestTrimRefusesFile(t *testing.T) {
	path := filepath.Join(testDir(t), "f")
	w := Workload{Name: "t", Filename: path, RW: RandTrim, BS: 4096, Size: 1 << 20, IODepth: 1, NumJobs: 1,
		IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}
	_, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	if !result.IsUsage(err) || !strings.Contains(err.Error(), "randtrim") {
		t.Fatalf("err %v, want a usage error naming randtrim", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused job left %s: %v", path, err)
	}
}

// TestVerifyWritesDoNotAllocate: filling each block with its header and
// checksum adds no allocation to the write loop, on each engine.
func TestVerifyWritesDoNotAllocate(t *testing.T) {
	const ios = 4096
	for _, engine := range []Engine{EnginePsync, EngineIOUring} {
		for _, kind := range []VerifyKind{VerifyCRC32C, VerifyMD5} {
			t.Run(string(engine)+"/"+string(kind), func(t *testing.T) {
				e, _ := engineByName(engine)
				if err := e.available(); err != nil {
					clydetest.Skipf(t, "%s not available here: %v", engine, err)
				}
				path := filepath.Join(testDir(t), "f")
				if err := os.WriteFile(path, make([]byte, ios*verifyBS), 0o644); err != nil {
					t.Fatal(err)
				}
				h, err := osio.OpenFile(path, osio.ReadWrite|engineOpenFlags(e))
				if err != nil {
					t.Fatal(err)
				}
				wl := &workload{Workload: Workload{RW: RandWrite, BS: verifyBS, Size: ios * verifyBS, IODepth: 8, NumJobs: 1, IOEngine: engine,
					Buffer: Buffer{Kind: BufferRandom}, Seed: 1, Verify: kind, RandomMap: true}, engine: e, depth: 8}
				w := newWorker(wl, 0)
				w.h, w.ctx = h, context.Background()
				defer w.close()
				if allocs := runCountingAllocs(t, e, w); allocs > 100 {
					t.Errorf("%d allocations for %d verified writes", allocs, ios)
				}
				if n := w.verify.blocks.Written(); n != ios {
					t.Fatalf("%d of %d blocks have a seed: the random map writes every block once", n, ios)
				}
			})
		}
	}
}

// TestVerifyIntervalFixup: fio's verify_interval as init.c fixup_options
// settles it, from the one given and the write and read sizes.
func TestVerifyIntervalFixup(t *testing.T) {
	for _, c := range []struct {
		name   string
		rw     RW
		bs, vi int64
		// read and write, when set, are bs=READ,WRITE.
		read, write int64
		want        int64
	}{
		{name: "unset is the write size", rw: Write, bs: 4096, want: 4096},
		{name: "a part of the write", rw: Write, bs: 4096, vi: 512, want: 512},
		{name: "larger than the write is the write", rw: Write, bs: 512, vi: 1 << 20, want: 512},
		{name: "not a divisor is the write size", rw: Write, bs: 4096, vi: 1000, want: 4096},
		{name: "a read job's too", rw: Read, bs: 8192, vi: 1024, want: 1024},
		{name: "at most a job's smallest read", rw: ReadWrite, bs: 2048, read: 2048, write: 8192, vi: 4096, want: 2048},
		{name: "not the smallest read of a job that only writes", rw: Write, bs: 2048, read: 2048, write: 8192, vi: 4096, want: 4096},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := Workload{RW: c.rw, BS: c.bs, VerifyInterval: c.vi}
			if c.write > 0 {
				w.Sizes = &BlockSizes{}
				w.Sizes.Dirs[SizeRead] = blocksize.Dir{Min: c.read, Max: c.read}
				w.Sizes.Dirs[SizeWrite] = blocksize.Dir{Min: c.write, Max: c.write}
			}
			if got := w.verifyInterval(); got != c.want {
				t.Errorf("verify_interval %d with bs=%d: %d, want %d", c.vi, c.bs, got, c.want)
			}
		})
	}
}

// TestVerifyInterval: with verify_interval=512 every 512 bytes of a 4k
// write carry a header; a clean run passes, reading back a write a read,
// and a corrupt byte is named with its interval's offset and length, as
// fio names it.
func TestVerifyInterval(t *testing.T) {
	w := verifyWorkload(t, VerifyMD5)
	w.VerifyInterval = 512
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Shape: fioShape})
	if err != nil {
		t.Fatal(err)
	}
	if j := res.Jobs[0]; j.Read.TotalIOs != verifyBlocks || j.Read.IOBytes != w.Size {
		t.Errorf("%d reads of %d bytes, want %d of %d", j.Read.TotalIOs, j.Read.IOBytes, verifyBlocks, w.Size)
	}
	withBeforeVerify(t, func(t *testing.T, h osio.File) {
		b := pread(t, h, 3*verifyBS)
		if got := binary.LittleEndian.Uint16(b[512:]); got != 0xacca {
			t.Errorf("no header at byte 512 of a block: %x", got)
		}
		b[1000] ^= 1
		pwrite(t, h, b, 3*verifyBS)
	})
	w.Filename = filepath.Join(testDir(t), "g")
	_, err = RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Bad != 1 || !strings.Contains(ve.Lines[0], "md5: verify failed at offset 12800, length 512") {
		t.Errorf("err %v, want one bad interval at 12800 of 512 bytes", err)
	}
}

// TestVerifyReadJob: a job that only reads, with verify=, checks every
// block it reads against the header the writer left in it (fio's verify
// on a read-only workload): the blocks a do_verify=0 write job wrote
// pass, in order and at random, at any depth; a damaged one ends the
// job, named with its offset.
func TestVerifyReadJob(t *testing.T) {
	write := verifyWorkload(t, VerifyMD5)
	write.RW, write.NoVerifyPass, write.VerifyInterval = RandWrite, true, 1024
	for _, c := range []struct {
		rw     RW
		engine Engine
		depth  int
	}{{Read, EnginePsync, 1}, {RandRead, EnginePsync, 1}, {RandRead, EngineIOUring, 8}} {
		t.Run(string(c.rw)+"/"+string(c.engine), func(t *testing.T) {
			if e, _ := engineByName(c.engine); e.available() != nil {
				clydetest.Skipf(t, "%s not available here", c.engine)
			}
			read := write
			read.RW, read.IOEngine, read.IODepth, read.NoVerifyPass = c.rw, c.engine, c.depth, false
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{write}, {read}}, Shape: fioShape})
			if err != nil {
				t.Fatal(err)
			}
			if j := res.Jobs[1]; j.Read.TotalIOs != verifyBlocks || j.Write.TotalIOs != 0 {
				t.Errorf("the read job: %d reads, %d writes; want %d, 0", j.Read.TotalIOs, j.Write.TotalIOs, verifyBlocks)
			}
		})
	}
	t.Run("damaged", func(t *testing.T) {
		// Written here, the run leaves an existing file in place.
		blocks := verify.New(verify.Spec{Kind: VerifyMD5, Size: verifyBlocks * verifyBS, Interval: 1024, MaxIO: verifyBS, Seeds: newRand(3, 1)})
		data := make([]byte, verifyBlocks*verifyBS)
		for i := range int64(verifyBlocks) {
			blocks.Fill(data[i*verifyBS:(i+1)*verifyBS], i*verifyBS, 0)
		}
		data[5*verifyBS+2048+100] ^= 4
		if err := os.WriteFile(write.Filename, data, 0o644); err != nil {
			t.Fatal(err)
		}
		read := write
		read.RW, read.NoVerifyPass = Read, true // do_verify=0: every read is checked all the same
		res, err := RunPlan(context.Background(), Plan{Groups: []Group{{read}}, Shape: fioShape})
		var ve *VerifyError
		if !errors.As(err, &ve) || !ve.Read || !strings.Contains(ve.Lines[0], "md5: verify failed at offset 22528, length 1024") {
			t.Errorf("err %v, want the bad 1k at 22528 named", err)
		}
		if res != nil && len(res.Jobs) > 0 && res.Jobs[0].Read.TotalIOs != 6 {
			t.Errorf("%d reads, want 6: the job ends at the bad one", res.Jobs[0].Read.TotalIOs)
		}
	})
}

// TestVerifyMixed: a mixed job with verify= reads back every block it
// wrote, after the pass or (verify_backlog=1) right after each write, so
// its reads are the region whatever the mix drew; its own reads are not
// checked, and a block damaged before the verify pass is caught.
func TestVerifyMixed(t *testing.T) {
	for _, c := range []struct {
		rw      RW
		backlog int64
	}{{ReadWrite, 0}, {ReadWrite, 1}, {RandRW, 0}, {RandRW, 3}} {
		t.Run(fmt.Sprintf("%s/backlog=%d", c.rw, c.backlog), func(t *testing.T) {
			w := verifyWorkload(t, VerifyCRC32C)
			w.RW, w.RWMixRead, w.VerifyBacklog = c.rw, 50, c.backlog
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Shape: fioShape})
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			if j.Read.IOBytes != w.Size || j.Write.TotalIOs == 0 || j.Write.TotalIOs == verifyBlocks {
				t.Errorf("read %d bytes, wrote %d blocks; want %d read, some written", j.Read.IOBytes, j.Write.TotalIOs, w.Size)
			}
		})
	}
	t.Run("damaged", func(t *testing.T) {
		var written []int64
		withBeforeVerify(t, func(t *testing.T, h osio.File) {
			for off := int64(0); off < verifyBlocks*verifyBS; off += verifyBS {
				if binary.LittleEndian.Uint16(pread(t, h, off)) == 0xacca {
					written = append(written, off)
				}
			}
			if len(written) > 0 {
				b := pread(t, h, written[0])
				b[3000] ^= 1
				pwrite(t, h, b, written[0])
			}
		})
		w := verifyWorkload(t, VerifyMD5)
		w.RW, w.RWMixRead = ReadWrite, 50
		_, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Bad != 1 || ve.Checked != int64(len(written)) {
			t.Errorf("err %v, want 1 bad of the %d written", err, len(written))
		}
	})
}
