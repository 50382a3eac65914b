package copybench

import (
	"context"
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// probeBytes is the size of the file each method is tried on.
const probeBytes = 64 << 10

// probe tries each method the options ask for on one small file, from the
// source side's private directory to the destination side's, and lists
// which can run here and why the others cannot. A single method asked for
// that cannot run refuses the run (a usage error naming --method); with
// All it is listed as not available.
func (r *runner) probe(ctx context.Context) ([]result.CopyMethod, error) {
	want := r.opts.methods()
	needProbe := false
	for _, m := range want {
		needProbe = needProbe || m != ReadWrite
	}
	srcName := osio.Name("probe")
	if needProbe {
		if err := r.writeProbe(srcName); err != nil {
			return nil, fmt.Errorf("write the probe file in %s: %w", r.src.run.Path, err)
		}
		defer r.src.run.Dir.Remove(srcName)
	}
	var list []result.CopyMethod
	for _, m := range want {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cm := result.CopyMethod{Method: string(m), Available: true}
		if m != ReadWrite {
			why, err := r.tryMethod(m, srcName)
			if err != nil {
				return nil, fmt.Errorf("try %s on %s: %w", m, r.where(), err)
			}
			if why != "" {
				cm.Available, cm.Reason = false, r.where()+": "+why
			}
		}
		list = append(list, cm)
		if cm.Available {
			r.runnable = append(r.runnable, m)
		}
	}
	if r.opts.Method != All && !list[0].Available {
		return nil, result.Usagef("--method", "%s cannot run on %s; use --method readwrite or all", list[0].Method, list[0].Reason)
	}
	return list, nil
}

func (r *runner) writeProbe(name []byte) error {
	f, err := r.src.run.Dir.Open(name, osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		return err
	}
	b := make([]byte, probeBytes)
	r.opts.sourceData(-1, 0).fill(b)
	err = osio.WriteFull(f, b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// callName is the system call each method stands on, for messages.
var callName = map[Method]string{CopyFileRange: "copy_file_range", Clone: "FICLONE"}

// tryMethod copies the probe with m. It returns why m cannot work here
// ("" when it can), or an error when the attempt failed for another reason.
func (r *runner) tryMethod(m Method, srcName []byte) (string, error) {
	src, err := r.src.run.Dir.Open(srcName, osio.ReadOnly, 0)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dstName := osio.Name("probe." + string(m))
	dst, err := r.dst.run.Dir.Open(dstName, osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		return "", err
	}
	defer r.dst.run.Dir.Remove(dstName)
	switch m {
	case CopyFileRange:
		err = copyRange(context.Background(), dst, src, probeBytes)
	case Clone:
		err = osio.Clone(dst, src)
	}
	cerr := dst.Close()
	if err != nil {
		if why, ok := osio.CannotCopy(err); ok {
			return callName[m] + ": " + why, nil
		}
		return "", err
	}
	return "", cerr
}
