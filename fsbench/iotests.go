package fsbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"time"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/result"
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
			prepare: func(c *copyState) error { return r.openBig(c, true, false) },
			work: func(ctx context.Context, c *copyState) (int64, int64, error) {
				return r.putChar(ctx, c, byteIO)
			},
		})
	}
	phases = append(phases, phaseFuncs{
		test: result.PutBlock,
		prepare: func(c *copyState) error {
			if err := os.Remove(c.bigPath); err != nil && !os.IsNotExist(err) {
				return err
			}
			clear(c.buf)
			return r.openBig(c, true, o.Direct)
		},
		work: func(ctx context.Context, c *copyState) (int64, int64, error) {
			return r.putBlock(ctx, c, chunks)
		},
	}, phaseFuncs{
		test:    result.Rewrite,
		prepare: func(c *copyState) error { return r.evictAndOpen(c, run, result.Rewrite, o.Direct) },
		work: func(ctx context.Context, c *copyState) (int64, int64, error) {
			return r.rewrite(ctx, c, chunks)
		},
	})
	if byteIO > 0 {
		phases = append(phases, phaseFuncs{
			test:    result.GetChar,
			prepare: func(c *copyState) error { return r.evictAndOpen(c, run, result.GetChar, false) },
			work: func(ctx context.Context, c *copyState) (int64, int64, error) {
				return r.getChar(ctx, c, byteIO)
			},
		})
	}
	phases = append(phases, phaseFuncs{
		test:    result.GetBlock,
		prepare: func(c *copyState) error { return r.evictAndOpen(c, run, result.GetBlock, o.Direct) },
		work: func(ctx context.Context, c *copyState) (int64, int64, error) {
			return r.getBlock(ctx, c, chunks)
		},
	}, phaseFuncs{
		test:    result.Seeks,
		prepare: func(c *copyState) error { return r.prepareSeeks(c, run, chunks) },
		work:    r.seeks,
		after: func(c *copyState) error {
			return removeIfExists(c.bigPath)
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

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

func (r *runner) removeBigFiles() {
	for _, c := range r.copies {
		_ = removeIfExists(c.bigPath)
	}
}

func (r *runner) closeBig() {
	for _, c := range r.copies {
		if c.file != (fileHandle{}) {
			_ = c.file.close()
			c.file = fileHandle{}
		}
		for _, f := range c.seekFDs {
			_ = f.close()
		}
		c.seekFDs = nil
	}
}

func (r *runner) openBig(c *copyState, create, direct bool) error {
	f, err := openPath(c.bigPath, create, direct)
	if err != nil {
		return err
	}
	c.file = f
	return nil
}

// evictAndOpen drops the big file from the page cache (outside the timing)
// and records how cold the cache is, then opens the file for the phase.
func (r *runner) evictAndOpen(c *copyState, run *result.FSRun, t result.FSTest, direct bool) error {
	r.evict(c, run, t)
	if err := r.openBig(c, false, direct); err != nil {
		return err
	}
	_, err := c.file.seek(0, io.SeekStart)
	return err
}

func (r *runner) evict(c *copyState, run *result.FSRun, t result.FSTest) {
	if r.opts.NoEvict {
		return
	}
	st := evictPageCache(c.bigPath, r.opts.SizeMiB<<20)
	if prev := run.Tests[t].Cache; prev != nil {
		// Several copies: the phase is cold only if every copy's file is.
		prev.ResidentBytes += st.ResidentBytes
		prev.FileBytes += st.FileBytes
		prev.Cold = prev.Cold && st.Cold
		prev.Evicted = prev.Evicted && st.Evicted
		if st.Error != "" {
			prev.Error = st.Error
		}
		return
	}
	run.Tests[t].Cache = &st
}

// finishFile is bonnie++'s Close(): fsync then close, inside the timing.
func finishFile(c *copyState, path string) error {
	f := c.file
	c.file = fileHandle{}
	if err := f.sync(); err != nil {
		_ = f.close()
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	if err := f.close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

// putChar writes n bytes with one write(2) call per byte, as bonnie++ 1.92+
// does. Latency is per chunk of one-byte calls (bonnie++'s unit), so reading
// the clock does not weigh on a sub-microsecond call.
func (r *runner) putChar(ctx context.Context, c *copyState, n int64) (int64, int64, error) {
	chunk := int64(r.opts.ChunkBytes)
	lat := c.lat[0]
	b := &c.buf[0]
	var done int64
	for done < n {
		t0 := cpuclock.Nanotime()
		end := min(done+chunk, n)
		for i := done; i < end; i++ {
			*b = byte(i & 0x7f)
			if w, err := c.file.pwriteByteRaw(b, i); w != 1 {
				return done, done, writeErr(c.bigPath, err)
			}
		}
		done = end
		if r.opts.SyncWrites {
			if err := c.file.sync(); err != nil {
				return done, done, fmt.Errorf("fsync %s: %w", c.bigPath, err)
			}
		}
		lat.Record(time.Duration(cpuclock.Nanotime() - t0))
		c.done.Store(done)
		if stopped(ctx) {
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
	lat := c.lat[0]
	idx := 0
	prev := cpuclock.Nanotime()
	for k := range chunks {
		data := buf
		if c.pool != nil {
			data = poolChunk(c.pool, k, chunk)
		} else {
			buf[idx]++
			idx = (idx + 1) % chunk
		}
		if err := pwriteFull(c.file, data, k*int64(chunk)); err != nil {
			return k, k * int64(chunk), writeErr(c.bigPath, err)
		}
		if r.opts.SyncWrites {
			if err := c.file.sync(); err != nil {
				return k, k * int64(chunk), fmt.Errorf("fsync %s: %w", c.bigPath, err)
			}
		}
		now := cpuclock.Nanotime()
		lat.Record(time.Duration(now - prev))
		prev = now
		if k%checkEvery == 0 {
			c.done.Store(k)
			if stopped(ctx) {
				return k, k * int64(chunk), ctx.Err()
			}
		}
	}
	return chunks, chunks * int64(chunk), finishFile(c, c.bigPath)
}

func writeFull(f fileHandle, b []byte) error {
	for len(b) > 0 {
		n, err := f.write(b)
		if err != nil {
			return err
		}
		if n <= 0 {
			return io.ErrShortWrite
		}
		b = b[n:]
	}
	return nil
}

// pwriteFull and preadFull move one chunk at an explicit offset. The block
// phases use them rather than the file position for the reason given at
// pwriteByteRaw: the same bytes in the same order, without the position lock
// a multi-threaded process pays for.
func pwriteFull(f fileHandle, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := f.pwrite(b, off)
		if err != nil {
			return err
		}
		if n <= 0 {
			return io.ErrShortWrite
		}
		b = b[n:]
		off += int64(n)
	}
	return nil
}

func preadFull(f fileHandle, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := f.pread(b, off)
		if err != nil {
			return err
		}
		if n == 0 {
			return errShortFile
		}
		b = b[n:]
		off += int64(n)
	}
	return nil
}

func readFull(f fileHandle, b []byte) error {
	for len(b) > 0 {
		n, err := f.read(b)
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
	lat := c.lat[0]
	prev := cpuclock.Nanotime()
	for k := range chunks {
		if err := readFull(c.file, buf); err != nil {
			return k, k * int64(chunk), fmt.Errorf("read %s: %w", c.bigPath, err)
		}
		buf[int(k)%chunk]++
		if _, err := c.file.seek(-int64(chunk), io.SeekCurrent); err != nil {
			return k, k * int64(chunk), fmt.Errorf("lseek %s: %w", c.bigPath, err)
		}
		if err := writeFull(c.file, buf); err != nil {
			return k, k * int64(chunk), writeErr(c.bigPath, err)
		}
		if r.opts.SyncWrites {
			if err := c.file.sync(); err != nil {
				return k, k * int64(chunk), fmt.Errorf("fsync %s: %w", c.bigPath, err)
			}
		}
		now := cpuclock.Nanotime()
		lat.Record(time.Duration(now - prev))
		prev = now
		if k%checkEvery == 0 {
			c.done.Store(k)
			if stopped(ctx) {
				return k, k * int64(chunk), ctx.Err()
			}
		}
	}
	return chunks, chunks * int64(chunk), finishFile(c, c.bigPath)
}

// getChar reads the first n bytes with one read(2) call per byte.
func (r *runner) getChar(ctx context.Context, c *copyState, n int64) (int64, int64, error) {
	chunk := int64(r.opts.ChunkBytes)
	lat := c.lat[0]
	b := &c.buf[0]
	var done int64
	for done < n {
		t0 := cpuclock.Nanotime()
		end := min(done+chunk, n)
		for i := done; i < end; i++ {
			if got, err := c.file.preadByteRaw(b, i); got != 1 {
				if err == nil {
					err = errShortFile
				}
				return done, done, fmt.Errorf("read %s: %w", c.bigPath, err)
			}
		}
		done = end
		lat.Record(time.Duration(cpuclock.Nanotime() - t0))
		c.done.Store(done)
		if stopped(ctx) {
			return done, done, ctx.Err()
		}
	}
	return n, n, finishFile(c, c.bigPath)
}

// getBlock reads the whole file a chunk at a time.
func (r *runner) getBlock(ctx context.Context, c *copyState, chunks int64) (int64, int64, error) {
	chunk := r.opts.ChunkBytes
	buf := c.buf[:chunk]
	lat := c.lat[0]
	prev := cpuclock.Nanotime()
	for k := range chunks {
		if err := preadFull(c.file, buf, k*int64(chunk)); err != nil {
			return k, k * int64(chunk), fmt.Errorf("read %s: %w", c.bigPath, err)
		}
		now := cpuclock.Nanotime()
		lat.Record(time.Duration(now - prev))
		prev = now
		if k%checkEvery == 0 {
			c.done.Store(k)
			if stopped(ctx) {
				return k, k * int64(chunk), ctx.Err()
			}
		}
	}
	return chunks, chunks * int64(chunk), finishFile(c, c.bigPath)
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

func (r *runner) prepareSeeks(c *copyState, run *result.FSRun, chunks int64) error {
	c.tickets = seekTickets(c, r.opts.Seeks)
	r.evict(c, run, result.Seeks)
	c.seekFDs = c.seekFDs[:0]
	for range r.opts.SeekProcs {
		f, err := openPath(c.bigPath, false, r.opts.Direct)
		if err != nil {
			for _, g := range c.seekFDs {
				_ = g.close()
			}
			c.seekFDs = nil
			return err
		}
		c.seekFDs = append(c.seekFDs, f)
	}
	_ = chunks
	return nil
}

// seeks runs SeekProcs workers over the copy's tickets. Worker w takes tickets
// w, w+procs, w+2*procs...: the same work as bonnie++'s shared pipe, but the
// split no longer depends on thread scheduling.
func (r *runner) seeks(ctx context.Context, c *copyState) (int64, int64, error) {
	procs := len(c.seekFDs)
	chunks := r.opts.chunksInFile()
	errs := make([]error, procs)
	counts := make([]int64, procs)
	done := make(chan struct{})
	for w := range procs {
		go func() {
			defer func() { done <- struct{}{} }()
			buf := alignedBuffer(r.opts.ChunkBytes, DirectAlign)
			counts[w], errs[w] = r.seekWorker(ctx, c, w, procs, c.seekFDs[w], buf, chunks)
		}()
	}
	for range procs {
		<-done
	}
	c.seekFDs = nil
	var n int64
	for _, k := range counts {
		n += k
	}
	return n, 0, errors.Join(errs...)
}

func (r *runner) seekWorker(ctx context.Context, c *copyState, w, procs int, f fileHandle, buf []byte, chunks int64) (int64, error) {
	chunk := int64(len(buf))
	lat := c.lat[w]
	var n int64
	fail := func(err error) (int64, error) {
		_ = f.close()
		return n, err
	}
	for j := w; j < len(c.tickets); j += procs {
		t0 := cpuclock.Nanotime()
		t := c.tickets[j]
		update := t < 0
		if update {
			t = -t
		}
		off := (int64(t) % chunks) * chunk
		if got, err := f.pread(buf, off); got != len(buf) {
			if err == nil {
				err = errShortFile
			}
			return fail(fmt.Errorf("read %s at %d: %w", c.bigPath, off, err))
		}
		if update {
			buf[int64(t)%chunk]--
			if _, err := f.pwrite(buf, off); err != nil {
				return fail(fmt.Errorf("write %s at %d: %w", c.bigPath, off, err))
			}
			if r.opts.SyncWrites {
				if err := f.sync(); err != nil {
					return fail(fmt.Errorf("fsync %s: %w", c.bigPath, err))
				}
			}
		}
		lat.Record(time.Duration(cpuclock.Nanotime() - t0))
		n++
		if n%checkEvery == 0 {
			if w == 0 {
				c.done.Store(n * int64(procs))
			}
			if stopped(ctx) {
				return fail(ctx.Err())
			}
		}
	}
	if err := f.sync(); err != nil {
		return fail(fmt.Errorf("fsync %s: %w", c.bigPath, err))
	}
	if err := f.close(); err != nil {
		return n, fmt.Errorf("close %s: %w", c.bigPath, err)
	}
	return n, nil
}

// randomPoolBytes is the size of the incompressible data pattern; chunks cycle
// through it, so compression gains nothing (deduplication over 8 MiB would).
const randomPoolBytes = 8 << 20

func randomPool(seed uint32, copyIndex, chunk int) []byte {
	n := max(randomPoolBytes, chunk)
	p := alignedBuffer(n, DirectAlign)
	src := mrand.NewPCG(uint64(seed), uint64(copyIndex)+1)
	for i := 0; i+8 <= len(p); i += 8 {
		v := src.Uint64()
		for k := range 8 {
			p[i+k] = byte(v >> (8 * k))
		}
	}
	return p
}

func poolChunk(pool []byte, k int64, chunk int) []byte {
	slots := int64(len(pool) / chunk)
	off := (k % slots) * int64(chunk)
	return pool[off : off+int64(chunk)]
}
