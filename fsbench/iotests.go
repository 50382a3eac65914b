package fsbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	mrand "math/rand/v2"
	"time"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/datagen"
	"github.com/clydebench/clyde/internal/lanes"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// errShortFile is a read that found the end of the big file too early.
var errShortFile = errors.New("file ended early")

func (r *runner) runIOTests(ctx context.Context, run *result.FSRun) error {
	o := &r.opts
	chunks := o.chunksInFile()
	byteIO := o.ByteIOMiB << 20
	var phases []phaseFuncs
	if byteIO > 0 {
		phases = append(phases, phaseFuncs{
			test:    result.PutChar,
			prepare: func(c *copyState, _ int) error { return r.openBig(c, result.PutChar) },
			work: func(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
				return r.putChar(ctx, c, byteIO)
			},
		})
	}
	phases = append(phases, phaseFuncs{
		test: result.PutBlock,
		setup: func(c *copyState) error {
			clear(c.buf)
			return removeBig(c)
		},
		prepare: func(c *copyState, _ int) error { return r.openBig(c, result.PutBlock) },
		work: func(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
			return r.putBlock(ctx, c, chunks)
		},
	}, phaseFuncs{
		test:    result.Rewrite,
		setup:   func(c *copyState) error { r.evict(c, run, result.Rewrite); return nil },
		prepare: func(c *copyState, _ int) error { return r.openAtStart(c, result.Rewrite) },
		work: func(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
			return r.rewrite(ctx, c, chunks)
		},
	})
	if byteIO > 0 {
		phases = append(phases, phaseFuncs{
			test:    result.GetChar,
			setup:   func(c *copyState) error { r.evict(c, run, result.GetChar); return nil },
			prepare: func(c *copyState, _ int) error { return r.openAtStart(c, result.GetChar) },
			work: func(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
				return r.getChar(ctx, c, byteIO)
			},
		})
	}
	phases = append(phases, phaseFuncs{
		test:    result.GetBlock,
		setup:   func(c *copyState) error { r.evict(c, run, result.GetBlock); return nil },
		prepare: func(c *copyState, _ int) error { return r.openAtStart(c, result.GetBlock) },
		work: func(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
			return r.getBlock(ctx, c, chunks)
		},
	}, phaseFuncs{
		test:    result.Seeks,
		lanes:   func(*copyState) int { return o.SeekProcs },
		setup:   func(c *copyState) error { r.setupSeeks(c, run); return nil },
		prepare: r.openSeekLane,
		work:    r.seekLane,
		after: func(c *copyState) error {
			return removeBig(c)
		},
	})
	for _, p := range phases {
		if err := r.runPhase(ctx, run, p); err != nil {
			r.closeBig()
			return err
		}
		tr := &run.Tests[p.test]
		tr.Direct = o.Direct && p.test != result.PutChar && p.test != result.GetChar
		if o.Direct && !tr.Direct {
			tr.Notes = append(tr.Notes, "one-byte calls cannot use O_DIRECT; this phase used the page cache")
		}
	}
	return nil
}

// removeBig removes the copy's big file if it is there.
func removeBig(c *copyState) error {
	if err := c.dir.Remove(c.bigName); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (r *runner) removeBigFiles() {
	for _, c := range r.copies {
		_ = removeBig(c)
	}
}

// closeBig forgets descriptors a failed phase left: a lane with a
// descriptor table of its own opened them there, and the kernel closed them
// when the lane's thread ended (see osio.IsolateThread); a lane that shared
// the process's table left them open, and they are closed here.
func (r *runner) closeBig() {
	for _, c := range r.copies {
		if c.sharedTable[0] && c.file.Valid() {
			_ = c.file.Close()
		}
		c.file = osio.NoFile
		for lane, f := range c.seekFDs {
			if c.sharedTable[lane] && f.Valid() {
				_ = f.Close()
			}
		}
		c.seekFDs = nil
	}
}

func (r *runner) openBig(c *copyState, test result.FSTest) error {
	f, err := c.dir.Open(c.bigName, bigFileFlags(test, &r.opts), 0o600)
	if err != nil {
		return err
	}
	c.file = f
	return nil
}

// openAtStart opens the existing big file for a read or rewrite phase.
func (r *runner) openAtStart(c *copyState, test result.FSTest) error {
	if err := r.openBig(c, test); err != nil {
		return err
	}
	_, err := c.file.Seek(0, io.SeekStart)
	return err
}

// evict drops the big file from the page cache (outside the timing) and
// records how cold the cache is. Once the last copy's file is dropped,
// what every file is read through is dropped too, once for the phase (the
// run's pagecache.Stack: a FUSE filesystem's device, the host's cache of a
// loop device's backing file): the phase is cold only if that is too.
func (r *runner) evict(c *copyState, run *result.FSRun, t result.FSTest) {
	if r.opts.NoEvict {
		return
	}
	st := evictBig(c, r.opts.SizeMiB<<20)
	if prev := run.Tests[t].Cache; prev != nil {
		// Several copies: the phase is cold only if every copy's file is.
		prev.ResidentBytes += st.ResidentBytes
		prev.FileBytes += st.FileBytes
		prev.Cold = prev.Cold && st.Cold
		prev.Evicted = prev.Evicted && st.Evicted
		if st.Error != "" {
			prev.Error = st.Error
		}
	} else {
		run.Tests[t].Cache = &st
	}
	if c == r.copies[len(r.copies)-1] {
		r.stack.Drop(int64(len(r.copies)) * r.opts.SizeMiB << 20).Apply(run.Tests[t].Cache)
	}
}

// evictBig drops the big file's cached pages. No handle of it is open
// here, which Windows needs (see osio.EvictFile).
func evictBig(c *copyState, size int64) result.CacheState {
	return osio.EvictFile(c.dir, c.bigName, size)
}

// finishFile is bonnie++'s Close(): fsync then close, inside the timing.
func finishFile(c *copyState, path string) error {
	f := c.file
	c.file = osio.NoFile
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

// putChar writes n bytes with one write(2) call per byte, as bonnie++ 1.92+
// does.
func (r *runner) putChar(ctx context.Context, c *copyState, n int64) (int64, int64, error) {
	b := &c.buf[0]
	return r.perCharLoop(ctx, c, n, func(from, to int64) error {
		for i := from; i < to; i++ {
			*b = byte(i & 0x7f)
			if w, err := c.file.WriteByteRaw(b); w != 1 {
				return writeErr(c.bigPath, err)
			}
		}
		return r.syncIfAsked(c)
	})
}

// perCharLoop runs the one-byte calls for bytes [0, n) a chunk at a time
// (run does bytes from..to). Latency is per chunk of calls, bonnie++'s unit,
// so reading the clock does not weigh on a sub-microsecond call; progress
// and cancellation are checked per chunk too. The file is fsynced and
// closed inside the timing.
func (r *runner) perCharLoop(ctx context.Context, c *copyState, n int64, run func(from, to int64) error) (int64, int64, error) {
	chunk := int64(r.opts.ChunkBytes)
	lat := c.lat[0]
	var done int64
	for done < n {
		t0 := cpuclock.Nanotime()
		end := min(done+chunk, n)
		if err := run(done, end); err != nil {
			return done, done, err
		}
		done = end
		lat.Record(time.Duration(cpuclock.Nanotime() - t0))
		c.done.Store(done)
		if lanes.Stopped(ctx) {
			return done, done, ctx.Err()
		}
	}
	return n, n, finishFile(c, c.bigPath)
}

func writeErr(path string, err error) error {
	if err == nil {
		err = io.ErrShortWrite
	}
	return fmt.Errorf("write %s: %w", path, err)
}

// putBlock writes the file a chunk at a time. The data is bonnie++'s (a zero
// buffer with one byte bumped per chunk) unless RandomData asks for
// incompressible data.
func (r *runner) putBlock(ctx context.Context, c *copyState, chunks int64) (int64, int64, error) {
	chunk := r.opts.ChunkBytes
	buf := c.buf[:chunk]
	idx := 0
	return r.chunkLoop(ctx, c, chunks, func(k int64) error {
		data := buf
		if c.pool != nil {
			data = poolChunk(c.pool, k, chunk)
		} else {
			buf[idx]++
			idx = (idx + 1) % chunk
		}
		if err := osio.WriteFull(c.file, data); err != nil {
			return writeErr(c.bigPath, err)
		}
		return r.syncIfAsked(c)
	})
}

// chunkLoop runs op once per chunk of the big file and times each call;
// every checkEveryOps chunks it publishes progress and stops if cancelled. At
// the end it fsyncs and closes the file inside the timing, as bonnie++ does.
func (r *runner) chunkLoop(ctx context.Context, c *copyState, chunks int64, op func(k int64) error) (int64, int64, error) {
	chunk := int64(r.opts.ChunkBytes)
	clock := startOps(ctx, c)
	for k := range chunks {
		if err := op(k); err != nil {
			return k, k * chunk, err
		}
		if err := clock.done(k); err != nil {
			return k, k * chunk, err
		}
	}
	return chunks, chunks * chunk, finishFile(c, c.bigPath)
}

// syncIfAsked is -b: fsync after every write.
func (r *runner) syncIfAsked(c *copyState) error {
	if !r.opts.SyncWrites {
		return nil
	}
	if err := r.fullSync(c.file); err != nil {
		return fmt.Errorf("fsync %s: %w", c.bigPath, err)
	}
	return nil
}

func readFull(f osio.File, b []byte) error {
	for len(b) > 0 {
		n, err := f.Read(b)
		if err != nil {
			return err
		}
		if n == 0 {
			return errShortFile
		}
		b = b[n:]
	}
	return nil
}

// rewrite reads each chunk, changes a byte, seeks back and writes it, with
// bonnie++'s read / lseek(-chunk, SEEK_CUR) / write sequence.
func (r *runner) rewrite(ctx context.Context, c *copyState, chunks int64) (int64, int64, error) {
	chunk := r.opts.ChunkBytes
	buf := c.buf[:chunk]
	return r.chunkLoop(ctx, c, chunks, func(k int64) error {
		if err := readFull(c.file, buf); err != nil {
			return fmt.Errorf("read %s: %w", c.bigPath, err)
		}
		buf[int(k)%chunk]++
		if _, err := c.file.Seek(-int64(chunk), io.SeekCurrent); err != nil {
			return fmt.Errorf("lseek %s: %w", c.bigPath, err)
		}
		if err := osio.WriteFull(c.file, buf); err != nil {
			return writeErr(c.bigPath, err)
		}
		return r.syncIfAsked(c)
	})
}

// getChar reads the first n bytes with one read(2) call per byte.
func (r *runner) getChar(ctx context.Context, c *copyState, n int64) (int64, int64, error) {
	b := &c.buf[0]
	return r.perCharLoop(ctx, c, n, func(from, to int64) error {
		for i := from; i < to; i++ {
			if got, err := c.file.ReadByteRaw(b); got != 1 {
				if err == nil {
					err = errShortFile
				}
				return fmt.Errorf("read %s: %w", c.bigPath, err)
			}
		}
		return nil
	})
}

// getBlock reads the whole file a chunk at a time.
func (r *runner) getBlock(ctx context.Context, c *copyState, chunks int64) (int64, int64, error) {
	buf := c.buf[:r.opts.ChunkBytes]
	return r.chunkLoop(ctx, c, chunks, func(int64) error {
		if err := readFull(c.file, buf); err != nil {
			return fmt.Errorf("read %s: %w", c.bigPath, err)
		}
		return nil
	})
}

// seekTickets draws bonnie++'s seek tickets from the copy's random stream:
// one rand() per seek, and one in ten (rand() % 10 == 0) writes back.
func seekTickets(c *copyState, n int) []int32 {
	t := make([]int32, n)
	for i := range t {
		v := c.rng.Int()
		if v%UpdateSeekEvery == 0 {
			v = -v
		}
		t[i] = v
	}
	return t
}

// setupSeeks draws the copy's tickets and evicts its file before any lane
// opens it.
func (r *runner) setupSeeks(c *copyState, run *result.FSRun) {
	c.tickets = seekTickets(c, r.opts.Seeks)
	r.evict(c, run, result.Seeks)
	c.seekFDs = make([]osio.File, r.opts.SeekProcs)
}

// openSeekLane opens the lane's own descriptor, as each bonnie++ seek thread
// reopens the file.
func (r *runner) openSeekLane(c *copyState, lane int) error {
	f, err := c.dir.Open(c.bigName, bigFileFlags(result.Seeks, &r.opts), 0)
	if err != nil {
		return err
	}
	c.seekFDs[lane] = f
	return nil
}

// seekLane is one of SeekProcs workers over the copy's tickets. Lane w takes
// tickets w, w+procs, w+2*procs...: the same work as bonnie++'s shared pipe,
// but the split no longer depends on thread scheduling.
func (r *runner) seekLane(ctx context.Context, c *copyState, w int) (int64, int64, error) {
	procs := len(c.seekFDs)
	f := c.seekFDs[w]
	buf := osio.AlignedBuffer(r.opts.ChunkBytes)
	chunks := r.opts.chunksInFile()
	chunk := int64(len(buf))
	lat := c.lat[w]
	var n int64
	fail := func(err error) (int64, int64, error) {
		_ = f.Close()
		return n, 0, err
	}
	for j := w; j < len(c.tickets); j += procs {
		t0 := cpuclock.Nanotime()
		t := c.tickets[j]
		update := t < 0
		if update {
			t = -t
		}
		// bonnie++'s doseek: lseek and read a chunk; to update, change a
		// byte, lseek back and write it.
		off := (int64(t) % chunks) * chunk
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return fail(fmt.Errorf("lseek %s to %d: %w", c.bigPath, off, err))
		}
		if err := readFull(f, buf); err != nil {
			return fail(fmt.Errorf("read %s at %d: %w", c.bigPath, off, err))
		}
		if update {
			buf[int64(t)%chunk]--
			if _, err := f.Seek(off, io.SeekStart); err != nil {
				return fail(fmt.Errorf("lseek %s to %d: %w", c.bigPath, off, err))
			}
			if err := osio.WriteFull(f, buf); err != nil {
				return fail(fmt.Errorf("write %s at %d: %w", c.bigPath, off, err))
			}
			if r.opts.SyncWrites {
				if err := r.fullSync(f); err != nil {
					return fail(fmt.Errorf("fsync %s: %w", c.bigPath, err))
				}
			}
		}
		lat.Record(time.Duration(cpuclock.Nanotime() - t0))
		n++
		if n%checkEveryOps == 0 {
			if w == 0 {
				c.done.Store(n * int64(procs))
			}
			if lanes.Stopped(ctx) {
				return fail(ctx.Err())
			}
		}
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("fsync %s: %w", c.bigPath, err))
	}
	if err := f.Close(); err != nil {
		return n, 0, fmt.Errorf("close %s: %w", c.bigPath, err)
	}
	return n, 0, nil
}

// randomPoolBytes is the size of the incompressible data pattern; chunks cycle
// through it, so compression gains nothing (deduplication over 8 MiB would).
const randomPoolBytes = 8 << 20

func randomPool(seed uint32, copyIndex, chunk int) []byte {
	n := max(randomPoolBytes, chunk)
	p := osio.AlignedBuffer(n)
	datagen.Fill(p, mrand.NewPCG(uint64(seed), uint64(copyIndex)+1))
	return p
}

func poolChunk(pool []byte, k int64, chunk int) []byte {
	slots := int64(len(pool) / chunk)
	off := (k % slots) * int64(chunk)
	return pool[off : off+int64(chunk)]
}
