package copybench

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/osio"
)

// A set lives in one directory of a side's private directory (src.N for
// the sources of set N, copy.N for its copies), its files spread
// round-robin over subdirectories d0000, d0001, ...: file i is
// d<i mod dirs>/f<i>. Sources and copies are laid out alike, and every
// step walks them one subdirectory after another, as a tree copy does, so
// only one subdirectory per side is open at a time.

func sourceRoot(set int) string { return fmt.Sprintf("src.%d", set) }
func copyRoot(set int) string   { return fmt.Sprintf("copy.%d", set) }
func subdirName(j int) string   { return fmt.Sprintf("d%04d", j) }
func fileName(i int) []byte     { return osio.Name(fmt.Sprintf("f%06d", i)) }

// dirsOf is how many subdirectories a set is spread over.
func (o *Options) dirsOf(s Set) int { return min(o.Dirs, s.Files) }

// relName is file i's name below the set's directory, for messages.
func (o *Options) relName(s Set, i int) string {
	return fmt.Sprintf("%s/f%06d", subdirName(i%o.dirsOf(s)), i)
}

// makeTree creates a set's directory and its subdirectories in a side's
// private directory.
func (o *Options) makeTree(parent osio.Dir, root string, s Set) error {
	if err := parent.Mkdir(osio.Name(root), 0o700); err != nil {
		return err
	}
	d, err := parent.OpenSubdir(osio.Name(root))
	if err != nil {
		return err
	}
	defer d.Close()
	for j := range o.dirsOf(s) {
		if err := d.Mkdir(osio.Name(subdirName(j)), 0o700); err != nil {
			return err
		}
	}
	return nil
}

// eachFile calls fn with every file of a set in root, subdirectory by
// subdirectory, and the subdirectory that holds it.
func (o *Options) eachFile(parent osio.Dir, root string, s Set, fn func(d osio.Dir, i int) error) error {
	return o.eachPair(parent, root, parent, root, s, func(d, _ osio.Dir, i int) error { return fn(d, i) })
}

// eachPair is eachFile over two trees laid out alike: the sources and the
// copies.
func (o *Options) eachPair(pa osio.Dir, rootA string, pb osio.Dir, rootB string, s Set, fn func(a, b osio.Dir, i int) error) error {
	a, err := pa.OpenSubdir(osio.Name(rootA))
	if err != nil {
		return err
	}
	defer a.Close()
	b := a
	if pb != pa || rootB != rootA {
		if b, err = pb.OpenSubdir(osio.Name(rootB)); err != nil {
			return err
		}
		defer b.Close()
	}
	n := o.dirsOf(s)
	for j := range n {
		if err := pairInSubdir(a, b, subdirName(j), func(sa, sb osio.Dir) error {
			for i := j; i < s.Files; i += n {
				if err := fn(sa, sb, i); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func pairInSubdir(a, b osio.Dir, name string, fn func(sa, sb osio.Dir) error) error {
	sa, err := a.OpenSubdir(osio.Name(name))
	if err != nil {
		return err
	}
	defer sa.Close()
	sb := sa
	if b != a {
		if sb, err = b.OpenSubdir(osio.Name(name)); err != nil {
			return err
		}
		defer sb.Close()
	}
	return fn(sa, sb)
}

// genBytes is the buffer source data is generated and verified in.
const genBytes = 1 << 20

// sourceData is the content of one source file: with BufferRandom a
// ChaCha8 stream keyed by the seed, the set and the file, so every file is
// different, incompressible and the same for the same seed; with
// BufferZero zeros.
type sourceData struct {
	rng *rand.ChaCha8 // nil: zeros
}

func (o *Options) sourceData(set, file int) sourceData {
	if o.Buffer == BufferZero {
		return sourceData{}
	}
	var key [32]byte
	binary.LittleEndian.PutUint64(key[0:], o.Seed)
	binary.LittleEndian.PutUint64(key[8:], uint64(set))
	binary.LittleEndian.PutUint64(key[16:], uint64(file))
	copy(key[24:], "clydecpy")
	return sourceData{rng: rand.NewChaCha8(key)}
}

// fill fills b with the next bytes of the file.
func (s sourceData) fill(b []byte) {
	if s.rng == nil {
		clear(b)
		return
	}
	_, _ = s.rng.Read(b) // ChaCha8's Read never fails
}
