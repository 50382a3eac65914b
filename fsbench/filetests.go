package fsbench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/clydebench/clyde/result"
)

// runFileTests runs bonnie++'s six file tests: create, stat(+read) and delete
// with sequential names, then the same with random names in random order.
func (r *runner) runFileTests(ctx context.Context, run *result.FSRun) error {
	for _, random := range []bool{false, true} {
		create, stat, del := result.SeqCreate, result.SeqStat, result.SeqDelete
		if random {
			create, stat, del = result.RandCreate, result.RandStat, result.RandDelete
		}
		for _, c := range r.copies {
			c.names = newNameSet(c.rng, r.opts.Files(), random, &r.opts)
		}
		phases := []phaseFuncs{
			{test: create, setup: r.makeTestDirs, work: r.createFiles},
			{test: stat, setup: r.prepareStat(random), work: r.statFiles(random)},
			{test: del, setup: r.prepareStat(random), work: r.deleteFiles(random)},
		}
		for _, p := range phases {
			if err := r.runPhase(ctx, run, p); err != nil {
				r.removeTestDirs()
				return err
			}
		}
		for _, c := range r.copies {
			c.names = nil
		}
	}
	return nil
}

// removeTestDirs clears a failed file test's leftovers so the next iteration
// (or the caller's cleanup) starts from an empty directory.
func (r *runner) removeTestDirs() {
	for _, c := range r.copies {
		_ = removeAll(filepath.Join(c.dir, c.testDir))
	}
}

// makeTestDirs creates the test directory and its subdirectories before the
// create phase's clock starts, as bonnie++ does.
func (r *runner) makeTestDirs(c *copyState) error {
	parent, err := openDirPath(c.dir)
	if err != nil {
		return err
	}
	defer parent.close()
	name := append([]byte(c.testDir), 0)
	if err := parent.mkdir(name); err != nil {
		return fmt.Errorf("mkdir %s: %w", filepath.Join(c.dir, c.testDir), err)
	}
	if r.opts.Dirs <= 1 {
		return nil
	}
	root, err := openDirPath(filepath.Join(c.dir, c.testDir))
	if err != nil {
		return err
	}
	defer root.close()
	var b []byte
	for d := range r.opts.Dirs {
		b = append(appendDirName(b[:0], d), 0)
		if err := root.mkdir(b); err != nil {
			return fmt.Errorf("mkdir %s: %w", filepath.Join(c.dir, c.testDir, string(b[:len(b)-1])), err)
		}
	}
	return nil
}

func (r *runner) testRoot(c *copyState) (dirHandle, error) {
	return openDirPath(filepath.Join(c.dir, c.testDir))
}

func (r *runner) fileErr(c *copyState, op string, path []byte, i int, err error) error {
	return fmt.Errorf("%s file %d of %d (%s): %w", op, i+1, c.names.n,
		filepath.Join(c.dir, c.testDir, string(path[:len(path)-1])), err)
}

// createFiles makes every file in index order: open(O_CREAT|O_EXCL), write its
// size in FileChunk pieces, with -b fsync the file and its directory, close;
// then flush the filesystem, all inside the timing.
func (r *runner) createFiles(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
	root, err := r.testRoot(c)
	if err != nil {
		return 0, 0, err
	}
	defer root.close()
	s := c.names
	path := make([]byte, 0, 64)
	var first, target []byte
	chunk := c.buf[:r.opts.FileChunk]
	if c.pool != nil {
		chunk = poolChunk(c.pool, int64(c.index), r.opts.FileChunk)
	}
	var written int64
	clock := startOps(ctx, c)
	for i := range s.n {
		path = s.path(path, i)
		switch {
		case i > 0 && r.opts.MaxFileBytes == LinkHard:
			if err := root.link(first, path); err != nil {
				return int64(i), written, r.fileErr(c, "link", path, i, err)
			}
		case i > 0 && r.opts.MaxFileBytes == LinkSymbolic:
			if err := root.symlink(target, path); err != nil {
				return int64(i), written, r.fileErr(c, "symlink", path, i, err)
			}
		default:
			n, err := r.createOne(root, path, s.fileSize(i), chunk)
			written += n
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
	if err := root.syncFS(); err != nil && !isNotSupported(err) {
		return int64(s.n), written, fmt.Errorf("syncfs: %w", err)
	}
	return int64(s.n), written, nil
}

// symlinkTarget points a link at file 0 from any directory. bonnie++ linked
// to file 0's bare name, which dangles once files span directories.
func symlinkTarget(s *nameSet, firstPath []byte) []byte {
	if s.dirs <= 1 {
		return firstPath
	}
	return append([]byte("../"), firstPath...)
}

func (r *runner) createOne(root dirHandle, path []byte, size int64, chunk []byte) (int64, error) {
	f, err := root.create(path)
	if err != nil {
		return 0, err
	}
	var written int64
	for written < size {
		n := min(int64(len(chunk)), size-written)
		w, err := f.writeSmall(chunk[:n])
		if err == nil && w <= 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			_ = f.closeSmall()
			return written, fmt.Errorf("write: %w", err)
		}
		written += int64(w)
	}
	if r.opts.SyncWrites {
		if err := f.sync(); err != nil {
			_ = f.closeSmall()
			return written, fmt.Errorf("fsync: %w", err)
		}
		if err := r.syncParent(root, path); err != nil {
			_ = f.closeSmall()
			return written, err
		}
	}
	return written, f.closeSmall()
}

// syncParent fsyncs the directory holding path (bonnie++ -b).
func (r *runner) syncParent(root dirHandle, path []byte) error {
	if r.opts.Dirs <= 1 {
		if err := root.sync(); err != nil {
			return fmt.Errorf("fsync directory: %w", err)
		}
		return nil
	}
	var dn [6]byte
	copy(dn[:], path[:5])
	d, err := root.openSubdir(dn[:])
	if err != nil {
		return fmt.Errorf("open directory: %w", err)
	}
	defer d.close()
	if err := d.sync(); err != nil {
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
		if random {
			return r.visitRandom(ctx, c, false)
		}
		return r.visitSequential(ctx, c, false)
	}
}

func (r *runner) deleteFiles(random bool) func(ctx context.Context, c *copyState, lane int) (int64, int64, error) {
	return func(ctx context.Context, c *copyState, _ int) (int64, int64, error) {
		var n, bytes int64
		var err error
		if random {
			n, bytes, err = r.visitRandom(ctx, c, true)
		} else {
			n, bytes, err = r.visitSequential(ctx, c, true)
		}
		if err != nil {
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
func (r *runner) statOne(d dirHandle, name []byte, st *statBuf, buf []byte) (int64, error) {
	size, err := d.stat(name, st)
	if err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	if size <= 0 {
		return 0, nil
	}
	f, err := d.openRead(name)
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	var read int64
	for read < size {
		n, err := f.readSmall(buf[:min(int64(len(buf)), size-read)])
		if err == nil && n == 0 {
			err = errShortFile
		}
		if err != nil {
			_ = f.closeSmall()
			return read, fmt.Errorf("read: %w", err)
		}
		read += int64(n)
	}
	return read, f.closeSmall()
}

// deleteOne unlinks a file; with -b it fsyncs the directory after it.
func (r *runner) deleteOne(d dirHandle, name []byte) error {
	if err := d.unlink(name); err != nil {
		return fmt.Errorf("unlink: %w", err)
	}
	if r.opts.SyncWrites {
		if err := d.sync(); err != nil {
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
	defer root.close()
	buf := c.buf[:r.opts.FileChunk]
	var st statBuf
	var count, bytes int64
	var dirName []byte
	op := "stat"
	if del {
		op = "delete"
	}
	clock := startOps(ctx, c)
	visit := func(d dirHandle) error {
		return c.scanner.scan(d, func(name []byte) error {
			if del {
				if err := r.deleteOne(d, name); err != nil {
					return fmt.Errorf("%s %s/%s: %w", op, d.path, name[:len(name)-1], err)
				}
			} else {
				n, err := r.statOne(d, name, &st, buf)
				bytes += n
				if err != nil {
					return fmt.Errorf("%s %s/%s: %w", op, d.path, name[:len(name)-1], err)
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
			d, oerr := root.openSubdir(dirName)
			if oerr != nil {
				return count, bytes, fmt.Errorf("open directory %s: %w", dirName[:len(dirName)-1], oerr)
			}
			err = visit(d)
			_ = d.close()
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		return count, bytes, err
	}
	if count != int64(c.names.n) {
		return count, bytes, fmt.Errorf("%s: found %d files in %s, expected %d", op, count, root.path, c.names.n)
	}
	return count, bytes, nil
}

func (r *runner) visitRandom(ctx context.Context, c *copyState, del bool) (int64, int64, error) {
	root, err := r.testRoot(c)
	if err != nil {
		return 0, 0, err
	}
	defer root.close()
	s := c.names
	buf := c.buf[:r.opts.FileChunk]
	path := make([]byte, 0, 64)
	var st statBuf
	var bytes int64
	clock := startOps(ctx, c)
	for k, idx := range s.perm {
		path = s.path(path, int(idx))
		if del {
			if err := r.deleteOneAt(root, path); err != nil {
				return int64(k), bytes, r.fileErr(c, "delete", path, int(idx), err)
			}
		} else {
			n, err := r.statOne(root, path, &st, buf)
			bytes += n
			if err != nil {
				return int64(k), bytes, r.fileErr(c, "stat", path, int(idx), err)
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
func (r *runner) deleteOneAt(root dirHandle, path []byte) error {
	if err := root.unlink(path); err != nil {
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
	parent, err := openDirPath(c.dir)
	if err != nil {
		return err
	}
	defer parent.close()
	if r.opts.Dirs > 1 {
		root, err := r.testRoot(c)
		if err != nil {
			return err
		}
		var b []byte
		for d := range r.opts.Dirs {
			b = append(appendDirName(b[:0], d), 0)
			if err := root.rmdir(b); err != nil {
				root.close()
				return fmt.Errorf("rmdir %s: %w", filepath.Join(root.path, string(b[:len(b)-1])), err)
			}
		}
		root.close()
	}
	if err := parent.rmdir(append([]byte(c.testDir), 0)); err != nil {
		return fmt.Errorf("rmdir %s: %w", filepath.Join(c.dir, c.testDir), err)
	}
	if err := parent.syncFS(); err != nil && !isNotSupported(err) {
		return fmt.Errorf("syncfs: %w", err)
	}
	return nil
}
