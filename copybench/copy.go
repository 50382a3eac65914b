package copybench

import (
	"context"
	"fmt"
	"time"

	"github.com/clydebench/clyde/internal/lanes"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// copySet copies every file of a set with method m and fills fig. Untimed
// before: the copies' directories are made and the sources evicted.
// Timed: each file opened, read, created, written (or copied by the kernel,
// or cloned), fsynced unless the options say otherwise, and closed; with
// SyncFS one syncfs at the end. Untimed after: every copy is verified, then
// removed.
func (r *runner) copySet(ctx context.Context, si int, set Set, m Method, ss *sourceSet, fig *result.CopyFigure) error {
	root := copyRoot(si)
	dst := r.dst.run.Dir
	if err := r.opts.makeTree(dst, root, set); err != nil {
		return fmt.Errorf("make the copies' directories: %w", err)
	}
	_ = dst.SyncFS()
	if err := r.evictSources(ctx, ss, set, fig); err != nil {
		return fmt.Errorf("evict sources: %w", err)
	}
	r.lat.Reset()
	r.copied.Store(0)
	if r.opts.Phases != nil {
		if err := r.opts.Phases.Before(ctx, r.step, r.copied.Load); err != nil {
			return err
		}
	}
	r.prog.begin("Copying %s with %s", set.Name(), m)
	cpu0, cpuErr := r.cpu()
	start := r.clock()
	err := r.opts.eachPair(r.src.run.Dir, ss.root, dst, root, set, func(sd, dd osio.Dir, i int) error {
		t0 := r.clock()
		err := r.copyFile(ctx, m, sd, dd, fileName(i), set.FileBytes)
		r.lat.Record(time.Duration(r.clock() - t0))
		if err != nil {
			return fmt.Errorf("file %d of %d (%s): %w", i+1, set.Files, r.opts.relName(set, i), err)
		}
		fig.Files++
		fig.Bytes += set.FileBytes
		r.copied.Add(1)
		if lanes.Stopped(ctx) {
			return ctx.Err()
		}
		return nil
	})
	if err == nil && r.opts.Sync == SyncFS {
		if err = dst.SyncFS(); err != nil {
			err = fmt.Errorf("syncfs %s: %w", r.dst.path, err)
		}
	}
	fig.ElapsedNs = r.clock() - start
	if cpu1, err := r.cpu(); err == nil && cpuErr == nil {
		used := cpu1.Sub(cpu0)
		fig.CPUUserNs, fig.CPUSysNs, fig.CPUKnown = int64(used.User), int64(used.Sys), true
	}
	r.prog.end(err)
	fig.Latency = r.lat.Summary()
	if err != nil {
		return err
	}
	fig.Ran = true
	r.prog.begin("Verifying %s copies", set.Name())
	err = r.verify(ctx, si, ss, root, set, m, fig)
	r.prog.end(err)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	fig.Verified = true
	if err := r.removeTree(r.dst, root); err != nil {
		return fmt.Errorf("remove the copies: %w", err)
	}
	return nil
}

// copyFile copies one file with method m.
func (r *runner) copyFile(ctx context.Context, m Method, sd, dd osio.Dir, name []byte, size int64) error {
	src, err := sd.Open(name, osio.ReadOnly, 0)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := dd.Open(name, osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		return err
	}
	switch m {
	case ReadWrite:
		err = r.readWrite(ctx, dst, src, size)
	case CopyFileRange:
		err = copyRange(ctx, dst, src, size)
	case Clone:
		err = osio.Clone(dst, src)
	}
	if err == nil && r.opts.Sync == SyncFile {
		if err = dst.Sync(); err != nil {
			err = fmt.Errorf("fsync: %w", err)
		}
	}
	if cerr := dst.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	return err
}

// readWrite is a plain copy loop: read a buffer, write it, until the
// source ends. Like GNU cp it first advises the kernel that the source is
// read sequentially.
func (r *runner) readWrite(ctx context.Context, dst, src osio.File, size int64) error {
	osio.AdviseSequential(src)
	var done int64
	for {
		n, err := src.Read(r.buf)
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if n == 0 {
			break
		}
		if err := osio.WriteFull(dst, r.buf[:n]); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		done += int64(n)
		if lanes.Stopped(ctx) {
			return ctx.Err()
		}
	}
	if done != size {
		return fmt.Errorf("the source ended after %d of %d bytes", done, size)
	}
	return nil
}

// copyRange lets the kernel copy, in chunks so a cancelled run stops soon.
func copyRange(ctx context.Context, dst, src osio.File, size int64) error {
	for done := int64(0); done < size; {
		n, err := osio.CopyFileRange(dst, src, int(min(copyFileRangeChunk, size-done)))
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("copy_file_range stopped after %d of %d bytes", done, size)
		}
		done += int64(n)
		if lanes.Stopped(ctx) {
			return ctx.Err()
		}
	}
	return nil
}
