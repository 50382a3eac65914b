package fileset

import (
	"fmt"
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/offsets"
)

// Region is one file of a set as its job uses it: fio's file_offset,
// io_size and real_file_size (Limit: no I/O ends past it).
type Region struct{ Offset, Size, Limit int64 }

// Shares are the files' shares of a job's size when the set has no
// filesize (setup_files): size/nrfiles each, the first files a block
// (fio's td_min_bs, minBS) more while what the division leaves lasts; all
// 0 without a size, each file then the rest of the file.
func (s Set) Shares(size, minBS int64) []int64 {
	n := int64(len(s.Names))
	shares := make([]int64, n)
	if s.Size.Low != 0 || size <= 0 {
		return shares
	}
	per := size / n
	extra := (size - per*n) / minBS
	for i := range shares {
		shares[i] = per
		if int64(i) < extra {
			shares[i] += minBS
		}
	}
	return shares
}

// Drawer draws the sizes of a filesize range, one a call: fio's draws
// (Size.Draws) in order, then clyde's own from rng, each as fio's
// get_rand_file_size makes it (low plus the range times a draw below 1,
// cut to a whole block of minBS).
func (z Size) Drawer(minBS int64, rng *rand.PCG) func() int64 {
	k := 0
	return func() int64 {
		if k < len(z.Draws) {
			k++
			return z.Draws[k-1]
		}
		r := uint32(rng.Uint64() >> 32)
		v := z.Low + int64(float64(z.High-z.Low)*(float64(r)/(offsets.Frand32Max+1.0)))
		return v - v%minBS
	}
}

// Lay is fio 3.33's setup_files for one file, name, of real bytes (-1:
// a diskless job's, which has none) at offset off (get_start_offset):
// its io_size is its share of the job's size (Shares), or the filesize,
// fixed or drawn by draw, unless the existing file is within the range,
// or, with neither, the rest of the file. The error is fio's refusal of
// an offset past the file or the filesize.
func (z Size) Lay(name string, real, off, share int64, draw func() int64) (Region, error) {
	var size int64
	switch {
	case z.Low == 0:
		size = share
		if size == 0 && real >= 0 {
			if off > real {
				return Region{}, fmt.Errorf("offset %d is past the end of %s (%d bytes)", off, name, real)
			}
			size = real - off
		}
	case real < z.Low || real > z.High:
		if off > z.Low {
			// fio: "you need to specify valid offset="
			return Region{}, fmt.Errorf("offset %d is past filesize %d", off, z.Low)
		}
		size = z.Low - off
		if z.High != z.Low {
			size = draw() - off
		}
	default:
		size = real - off
	}
	return Region{Offset: off, Size: size, Limit: max(real, off+size)}, nil
}
