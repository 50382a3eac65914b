package copybench

import (
	"context"
	"fmt"

	"github.com/cespare/xxhash/v2"

	"github.com/clydebench/clyde/internal/lanes"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// sourceSet is one set's sources on the source side and their checksums,
// taken from the data as it was generated.
type sourceSet struct {
	root   string
	hashes []uint64
}

// makeSources creates a set's source files, each written in full and
// hashed as it is generated; the files are written back and evicted before
// each method copies them (evictSources).
func (r *runner) makeSources(ctx context.Context, si int, set Set) (*sourceSet, error) {
	ss := &sourceSet{root: sourceRoot(si), hashes: make([]uint64, set.Files)}
	r.prog.begin("Creating %s sources", set.Name())
	parent := r.src.run.Dir
	err := r.opts.makeTree(parent, ss.root, set)
	if err == nil {
		err = r.opts.eachFile(parent, ss.root, set, func(d osio.Dir, i int) error {
			h, err := r.writeSource(ctx, d, si, i, set.FileBytes)
			if err != nil {
				return fmt.Errorf("file %d of %d (%s): %w", i+1, set.Files, r.opts.relName(set, i), err)
			}
			ss.hashes[i] = h
			return nil
		})
	}
	if err == nil {
		_ = parent.SyncFS()
	}
	r.prog.end(err)
	return ss, err
}

// writeSource writes one source file and returns its checksum.
func (r *runner) writeSource(ctx context.Context, d osio.Dir, si, i int, size int64) (uint64, error) {
	f, err := d.Open(fileName(i), osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		return 0, err
	}
	data := r.opts.sourceData(si, i)
	h := xxhash.New()
	for off := int64(0); off < size && err == nil; {
		b := r.gen[:min(int64(len(r.gen)), size-off)]
		data.fill(b)
		_, _ = h.Write(b)
		if err = osio.WriteFull(f, b); err != nil {
			err = fmt.Errorf("write: %w", err)
		}
		off += int64(len(b))
		if err == nil && lanes.Stopped(ctx) {
			err = ctx.Err()
		}
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	return h.Sum64(), err
}

// evictSources writes every source of the set back and drops it from the
// page cache, then sums what mincore still finds resident: the copy then
// reads from the device, and the result says whether it could. Then it
// drops what the sources are read through (the run's pagecache.Stack):
// beneath a FUSE filesystem the device's cache, beneath a loop device
// without direct I/O the host's cache of its backing file.
func (r *runner) evictSources(ctx context.Context, ss *sourceSet, set Set, fig *result.CopyFigure) error {
	var err error
	fig.SourceCache, err = r.evictFiles(ctx, ss, set)
	if err == nil {
		d := r.src.stack.Drop(set.Bytes())
		fig.DeviceCache, fig.SourceCache.Stack = d.Device, d.Stack
		fig.SourceCache.Cold = fig.SourceCache.Cold && d.Cold
	}
	return err
}

func (r *runner) evictFiles(ctx context.Context, ss *sourceSet, set Set) (result.CacheState, error) {
	agg := result.CacheState{Evicted: true}
	err := r.opts.eachFile(r.src.run.Dir, ss.root, set, func(d osio.Dir, i int) error {
		f, err := d.Open(fileName(i), osio.ReadOnly, 0)
		if err != nil {
			return err
		}
		st := osio.EvictPageCache(f, set.FileBytes)
		_ = f.Close()
		agg.FileBytes += set.FileBytes
		agg.Evicted = agg.Evicted && st.Evicted
		switch {
		case st.ResidentBytes < 0 || agg.ResidentBytes < 0:
			agg.ResidentBytes = -1
		default:
			agg.ResidentBytes += st.ResidentBytes
		}
		if agg.Error == "" && st.Error != "" {
			agg.Error = st.Error
		}
		if lanes.Stopped(ctx) {
			return ctx.Err()
		}
		return nil
	})
	agg.Cold = agg.ResidentBytes >= 0 && agg.Evicted && agg.ResidentBytes*100 < agg.FileBytes
	return agg, err
}

// verify reads every copy of the set, checks its size and checksum against
// its source's, and counts the copies whose extents are shared (clones).
func (r *runner) verify(ctx context.Context, si int, ss *sourceSet, root string, set Set, m Method, fig *result.CopyFigure) error {
	return r.opts.eachFile(r.dst.run.Dir, root, set, func(d osio.Dir, i int) error {
		name := fileName(i)
		if r.opts.inspect != nil {
			if err := r.opts.inspect(si, i, d, name); err != nil {
				return err
			}
		}
		path := d.Path() + "/" + string(name[:len(name)-1])
		f, err := d.Open(name, osio.ReadOnly, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		h := xxhash.New()
		var n int64
		for {
			k, err := f.Read(r.gen)
			if err != nil {
				return fmt.Errorf("read %s: %w", path, err)
			}
			if k == 0 {
				break
			}
			_, _ = h.Write(r.gen[:k])
			n += int64(k)
			if lanes.Stopped(ctx) {
				return ctx.Err()
			}
		}
		if n != set.FileBytes {
			return fmt.Errorf("copy %s holds %d bytes, its source %d", path, n, set.FileBytes)
		}
		if got := h.Sum64(); got != ss.hashes[i] {
			return fmt.Errorf("copy %s differs from its source (xxhash64 %016x, source %016x)", path, got, ss.hashes[i])
		}
		if m == ReadWrite {
			return nil // written byte by byte: nothing can be shared
		}
		shared, err := osio.SharedExtents(f)
		switch {
		case err != nil && fig.ExtentCheck == "":
			fig.ExtentCheck = err.Error()
		case shared:
			fig.SharedFiles++
		}
		return nil
	})
}
