package fsbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// runFileTests runs bonnie++'s six file tests: create, stat(+read) and delete
// with sequential names, then the same with random names in random order.
func (r *runner) runFileTests(ctx context.Context, run *result.FSRun) error {
	prev := make([]*nameSet, len(r.copies))
	for _, random := range []bool{false, true} {
		create, stat, del := result.SeqCreate, result.SeqStat, result.SeqDelete
		if random {
			create, stat, del = result.RandCreate, result.RandStat, result.RandDelete
		}
		for k, c := range r.copies {
			c.names = newNameSet(c.rng, r.opts.Files(), random, &r.opts, prev[k])
		}
		sh := r.sharer()
		phases := []phaseFuncs{
			{test: create, setup: r.makeTestDirs, work: r.createFiles},
			{test: stat, setup: r.prepareStat(random), work: r.statFiles(random)},
			{test: del, setup: r.prepareStat(random), work: r.deleteFiles(random)},
		}
		for _, p := range phases {
			for _, c := range r.copies {
				c.flushed, c.flushNs = "", 0
				// --rank-shift: stat and delete the files of the
				// peer rank's copy, whose names are the same.
				c.onPeer = c.peer.dir.Valid() && p.test != create
				// in a shared tree the peer's files are its names
				c.names.prefix = c.prefix
				if sh != nil && r.opts.RankShift > 0 && p.test != create {
					c.names.prefix = workerPrefix((sh.SharedRank()+r.opts.RankShift)%sh.SharedSize(), c.index)
				}
			}
			r.wall = nil
			if p.test == create {
				r.wall = r.newWall(run.Iteration, create)
			}
			err := r.runPhase(ctx, run, p)
			if r.wall != nil {
				run.Tests[p.test].Stonewall = r.wall.result()
			}
			if err != nil {
				r.removeTestDirs()
				return err
			}
			if p.test == del && sh != nil && r.treeMaker(r.copies[0]) {
				// every worker has deleted its files (the phase's
				// closing barrier): the directories go, untimed
				if err := r.removeDirs(r.copies[0]); err != nil {
					return fmt.Errorf("%s: %w", del.Phase(), err)
				}
			}
			if !random && p.test != create {
				switch {
				case sh != nil:
					run.Tests[p.test].Notes = append(run.Tests[p.test].Notes, "shared tree: each worker visits the files it reads by name in index order, not in readdir order (which lists every rank's)")
				case r.opts.CreationOrder:
					run.Tests[p.test].Notes = append(run.Tests[p.test].Notes, "--creation-order: each worker visits its files by name in the order it made them, as mdtest does, not in bonnie++'s readdir order")
				}
			}
		}
		for k, c := range r.copies {
			prev[k], c.names = c.names, nil
		}
	}
	return nil
}

// removeTestDirs clears a failed file test's leftovers so the next iteration
// (or the caller's cleanup) starts from an empty directory.
func (r *runner) removeTestDirs() {
	for _, c := range r.copies {
		if !r.treeMaker(c) {
			continue
		}
		_ = c.dir.RemoveAll(osio.Name(c.testDir))
	}
}

// makeTestDirs creates the test directory and its subdirectories before the
// create phase's clock starts, as bonnie++ does.
func (r *runner) makeTestDirs(c *copyState) error {
	if !r.treeMaker(c) {
		return nil // one worker makes a shared tree's, before the common start
	}
	if err := c.dir.Mkdir(osio.Name(c.testDir), 0o700); err != nil {
		return err
	}
	if r.opts.Dirs <= 1 {
		return nil
	}
	root, err := r.testRoot(c)
	if err != nil {
		return err
	}
	defer root.Close()
	var b []byte
	for d := range r.opts.Dirs {
		b = append(appendDirName(b[:0], d), 0)
		if err := root.Mkdir(b, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// testRoot opens the test directory of the copy's phase through its
// directory's descriptor.
func (r *runner) testRoot(c *copyState) (osio.Dir, error) {
	at := c.at()
	return at.dir.OpenSubdir(osio.Name(at.testDir))
}

func (r *runner) testPath(c *copyState, name []byte) string {
	at := c.at()
	return at.dir.Path() + "/" + at.testDir + "/" + string(name[:len(name)-1])
}

func (r *runner) fileErr(c *copyState, op string, path []byte, i int, err error) error {
	return fmt.Errorf("%s file %d of %d (%s): %w", op, i+1, c.names.n, r.testPath(c, path), err)
}

// createFiles makes every file in index order: open(O_CREAT|O_EXCL), write its
// size in FileChunk pieces, with -b fsync the file and its directory, close;
// then flush the filesystem, all inside the timing.
func (r *runner) createFiles(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
	root, err := r.testRoot(c)
	if err != nil {
		return 0, 0, err
	}
	defer root.Close()
	s := c.names
	path := make([]byte, 0, 64)
	var first, target []byte
	chunk := c.buf[:r.opts.FileChunk]
	if c.pool != nil {
		chunk = poolChunk(c.pool, int64(c.index), r.opts.FileChunk)
	}
	var written int64
	clock := startOps(ctx, c)
	// --stonewall: stop at the wall, then make files up to the count
	// every worker agreed on.
	w, start, limit := r.wall, clock.prev, s.n
	for i := 0; i < limit; i++ {
		if w != nil && w.reached(start) {
			m, err := w.stop(ctx, int64(i), cpuclock.Nanotime()-start, false)
			if err != nil {
				return int64(i), written, err
			}
			limit, w = int(min(m, int64(s.n))), nil
			if i >= limit {
				break
			}
			clock.prev = cpuclock.Nanotime() // the wait is no file's latency
		}
		path = s.path(path, i)
		switch {
		case i > 0 && r.opts.MaxFileBytes == LinkHard:
			if err := root.LinkSmall(first, path); err != nil {
				return int64(i), written, r.fileErr(c, "link", path, i, err)
			}
		case i > 0 && r.opts.MaxFileBytes == LinkSymbolic:
			if err := root.SymlinkSmall(target, path); err != nil {
				return int64(i), written, r.fileErr(c, "symlink", path, i, err)
			}
		default:
			n, err := r.createOne(root, path, s.fileSize(i), chunk)
			written += n
			if err != nil && r.opts.RankShift > 0 && errors.Is(err, fs.ErrExist) {
				err = fmt.Errorf("%w (another rank deleted it through its own mount: this client's cache still holds it, so the filesystem is not coherent between clients; sshfs needs -o cache=no,entry_timeout=0,attr_timeout=0 for a rank shift)", err)
			}
			if err != nil {
				return int64(i), written, r.fileErr(c, "create", path, i, err)
			}
			if i == 0 {
				first = append([]byte(nil), path...)
				target = symlinkTarget(s, first)
			}
		}
		if err := clock.done(int64(i)); err != nil {
			return int64(i), written, err
		}
	}
	if w != nil { // made them all before the wall: the first done
		m, err := w.stop(ctx, int64(limit), cpuclock.Nanotime()-start, true)
		if err != nil {
			return int64(limit), written, err
		}
		limit = int(min(m, int64(s.n)))
	}
	// The later phases see the files there are.
	s.truncate(limit)
	t0 := time.Now()
	how, err := r.flushCreated(c, root)
	c.flushed, c.flushNs = how, int64(time.Since(t0))
	return int64(limit), written, err
}

// symlinkTarget points a link at file 0 from any directory. bonnie++ linked
// to file 0's bare name, which dangles once files span directories.
func symlinkTarget(s *nameSet, firstPath []byte) []byte {
	if s.dirs <= 1 {
		return firstPath
	}
	return append([]byte("../"), firstPath...)
}

func (r *runner) createOne(root osio.Dir, path []byte, size int64, chunk []byte) (int64, error) {
	f, err := root.CreateSmall(path)
	if err != nil {
		return 0, err
	}
	var written int64
	for written < size {
		n := min(int64(len(chunk)), size-written)
		w, err := f.WriteSmall(chunk[:n])
		if err == nil && w <= 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			_ = f.CloseSmall()
			return written, fmt.Errorf("write: %w", err)
		}
		written += int64(w)
	}
	if r.opts.SyncWrites {
		if err := r.fullSync(f); err != nil {
			_ = f.CloseSmall()
			return written, fmt.Errorf("fsync: %w", err)
		}
		if err := r.syncParent(root, path); err != nil {
			_ = f.CloseSmall()
			return written, err
		}
	}
	return written, f.CloseSmall()
}

// syncParent fsyncs the directory holding path (bonnie++ -b).
func (r *runner) syncParent(root osio.Dir, path []byte) error {
	if r.opts.Dirs <= 1 {
		if err := root.Sync(); err != nil {
			return fmt.Errorf("fsync directory: %w", err)
		}
		return nil
	}
	var dn [6]byte
	copy(dn[:], path[:5])
	d, err := root.OpenSubdirSmall(dn[:])
	if err != nil {
		return fmt.Errorf("open directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync directory: %w", err)
	}
	return nil
}

// prepareStat draws the random order before the clock starts (bonnie++'s
// random_sort); the sequential tests need nothing.
func (r *runner) prepareStat(random bool) func(c *copyState) error {
	return func(c *copyState) error {
		if random {
			c.names.shuffle(c.rng)
		}
		return nil
	}
}

// statFiles stats every file and, when it has data, reads all of it. The
// sequential test walks each directory in readdir order (the readdir calls
// are inside the timing); the random test goes by the shuffled order.
func (r *runner) statFiles(random bool) func(ctx context.Context, c *copyState, lane int) (int64, int64, error) {
	return func(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
		if random || r.opts.visitOrder() != "" {
			return r.visitRandom(ctx, c, false)
		}
		return r.visitSequential(ctx, c, false)
	}
}

func (r *runner) deleteFiles(random bool) func(ctx context.Context, c *copyState, lane int) (int64, int64, error) {
	return func(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
		var n, bytes int64
		var err error
		if random || r.opts.visitOrder() != "" {
			n, bytes, err = r.visitRandom(ctx, c, true)
		} else {
			n, bytes, err = r.visitSequential(ctx, c, true)
		}
		if err != nil {
			return n, bytes, err
		}
		if r.opts.SharedDir { // the directories go once every worker is done
			t0 := time.Now()
			how, err := r.flushDeleted(c)
			c.flushed, c.flushNs = how, int64(time.Since(t0))
			return n, bytes, err
		}
		if err := r.removeDirs(c); err != nil {
			return n, bytes, err
		}
		return n, bytes, nil
	}
}

// statOne is one file of the stat test: stat, then read the size stat gave
// in FileChunk pieces, as bonnie++ does (no extra read to find the end).
func (r *runner) statOne(d osio.Dir, name []byte, st *osio.StatBuf, buf []byte) (int64, error) {
	size, err := d.StatSmall(name, st)
	if err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	if size <= 0 {
		return 0, nil
	}
	f, err := d.OpenSmall(name)
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	var read int64
	for read < size {
		n, err := f.ReadSmall(buf[:min(int64(len(buf)), size-read)])
		if err == nil && n == 0 {
			err = errShortFile
		}
		if err != nil {
			_ = f.CloseSmall()
			return read, fmt.Errorf("read: %w", err)
		}
		read += int64(n)
	}
	return read, f.CloseSmall()
}

// deleteOne unlinks a file; with -b it fsyncs the directory after it.
func (r *runner) deleteOne(d osio.Dir, name []byte) error {
	if err := d.UnlinkSmall(name); err != nil {
		return fmt.Errorf("unlink: %w", err)
	}
	if r.opts.SyncWrites {
		if err := d.Sync(); err != nil {
			return fmt.Errorf("fsync directory: %w", err)
		}
	}
	return nil
}

func (r *runner) visitSequential(ctx context.Context, c *copyState, del bool) (int64, int64, error) {
	root, err := r.testRoot(c)
	if err != nil {
		return 0, 0, err
	}
	defer root.Close()
	buf := c.buf[:r.opts.FileChunk]
	var st osio.StatBuf
	var count, bytes int64
	var dirName []byte
	op := "stat"
	if del {
		op = "delete"
	}
	clock := startOps(ctx, c)
	visit := func(d osio.Dir) error {
		return c.scanner.Scan(d, func(name []byte) error {
			if del {
				if err := r.deleteOne(d, name); err != nil {
					return fmt.Errorf("%s %s/%s: %w", op, d.Path(), name[:len(name)-1], err)
				}
			} else {
				n, err := r.statOne(d, name, &st, buf)
				bytes += n
				if err != nil {
					return fmt.Errorf("%s %s/%s: %w", op, d.Path(), name[:len(name)-1], err)
				}
			}
			count++
			return clock.done(count)
		})
	}
	if r.opts.Dirs <= 1 {
		err = visit(root)
	} else {
		for dn := range r.opts.Dirs {
			dirName = append(appendDirName(dirName[:0], dn), 0)
			d, oerr := root.OpenSubdirSmall(dirName)
			if oerr != nil {
				return count, bytes, fmt.Errorf("open directory %s: %w", dirName[:len(dirName)-1], oerr)
			}
			err = visit(d)
			_ = d.Close()
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		return count, bytes, err
	}
	if count != int64(c.names.n) {
		return count, bytes, fmt.Errorf("%s: found %d files in %s, expected %d", op, count, root.Path(), c.names.n)
	}
	return count, bytes, nil
}

func (r *runner) visitRandom(ctx context.Context, c *copyState, del bool) (int64, int64, error) {
	root, err := r.testRoot(c)
	if err != nil {
		return 0, 0, err
	}
	defer root.Close()
	s := c.names
	buf := c.buf[:r.opts.FileChunk]
	path := make([]byte, 0, 64)
	var st osio.StatBuf
	var bytes int64
	clock := startOps(ctx, c)
	inOrder := !s.random // a shared tree's sequential visit: by name, in index order
	for k := range s.n {
		idx := k
		if !inOrder {
			idx = s.visit(k)
		}
		path = s.path(path, idx)
		if del {
			if err := r.deleteOneAt(root, path); err != nil {
				return int64(k), bytes, r.fileErr(c, "delete", path, idx, err)
			}
		} else {
			n, err := r.statOne(root, path, &st, buf)
			bytes += n
			if err != nil {
				return int64(k), bytes, r.fileErr(c, "stat", path, idx, err)
			}
		}
		if err := clock.done(int64(k)); err != nil {
			return int64(k), bytes, err
		}
	}
	return int64(s.n), bytes, nil
}

// deleteOneAt unlinks path (relative to the test directory) and with -b
// fsyncs its directory.
func (r *runner) deleteOneAt(root osio.Dir, path []byte) error {
	if err := root.UnlinkSmall(path); err != nil {
		return fmt.Errorf("unlink: %w", err)
	}
	if r.opts.SyncWrites {
		return r.syncParent(root, path)
	}
	return nil
}

// removeDirs removes the subdirectories and the test directory and flushes
// the filesystem: the end of bonnie++'s delete tests, inside the timing.
func (r *runner) removeDirs(c *copyState) error {
	if r.opts.Dirs > 1 {
		root, err := r.testRoot(c)
		if err != nil {
			return err
		}
		var b []byte
		for d := range r.opts.Dirs {
			b = append(appendDirName(b[:0], d), 0)
			if err := root.RmdirSmall(b); err != nil {
				root.Close()
				return fmt.Errorf("rmdir %s: %w", r.testPath(c, b), err)
			}
		}
		root.Close()
	}
	at := c.at()
	if err := at.dir.RmdirSmall(osio.Name(at.testDir)); err != nil {
		return fmt.Errorf("rmdir %s/%s: %w", at.dir.Path(), at.testDir, err)
	}
	t0 := time.Now()
	how, err := r.flushDeleted(c)
	c.flushed, c.flushNs = how, int64(time.Since(t0))
	return err
}
