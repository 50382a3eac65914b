package fsbench

import "github.com/clydebench/clyde/internal/glibcrand"

// randChars is bonnie++'s alphabet for the random part of file names.
const randChars = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

const (
	maxRandLen = 12 // RandExtraLen
	nameStride = 1 + maxRandLen
	hexDigits  = 10
)

// nameSet is one test's files: bonnie++'s names (a 10-digit hex index and up
// to 12 random characters), sizes and directory placement, in compact form so
// a million files fit in a few tens of MiB.
type nameSet struct {
	n      int
	random bool   // random-name set: random part first, then the index
	dirs   int    // directories the files are spread over
	extra  []byte // per file: length byte then up to 12 characters
	sizes  []uint32
	size   int64    // every file's size when sizes is nil
	perm   []uint32 // order for the random stat and delete
}

// newNameSet draws names, then sizes, from rng in bonnie++'s order, so the
// same -z seed gives the same names and sizes.
func newNameSet(rng *glibcrand.Rand, n int, random bool, o *Options) *nameSet {
	s := &nameSet{n: n, random: random, dirs: o.Dirs, extra: make([]byte, n*nameStride)}
	for i := range n {
		rec := s.extra[i*nameStride : (i+1)*nameStride]
		l := int(rng.Int() % (maxRandLen + 1))
		rec[0] = byte(l)
		for k := range l {
			rec[1+k] = randChars[rng.Int()%int32(len(randChars))]
		}
	}
	switch {
	case o.MaxFileBytes > 0 && o.MaxFileBytes != o.MinFileBytes:
		span := int32(o.MaxFileBytes - o.MinFileBytes + 1)
		s.sizes = make([]uint32, n)
		for i := range s.sizes {
			s.sizes[i] = uint32(o.MinFileBytes + int64(rng.Int()%span))
		}
	case o.MaxFileBytes > 0:
		s.size = o.MaxFileBytes
	}
	return s
}

// fileSize is file i's size in bytes.
func (s *nameSet) fileSize(i int) int64 {
	if s.sizes != nil {
		return int64(s.sizes[i])
	}
	return s.size
}

// dirOf spreads files evenly: bonnie++ gave every directory one file too many
// and the last one the shortfall.
func (s *nameSet) dirOf(i int) int {
	return int(int64(i) * int64(s.dirs) / int64(s.n))
}

// base appends file i's name (without directory) to b.
func (s *nameSet) base(b []byte, i int) []byte {
	rec := s.extra[i*nameStride : (i+1)*nameStride]
	extra := rec[1 : 1+int(rec[0])]
	if s.random {
		b = append(b, extra...)
		return appendHex(b, uint64(i))
	}
	b = appendHex(b, uint64(i))
	return append(b, extra...)
}

// path appends file i's path relative to the test directory, NUL-terminated.
func (s *nameSet) path(b []byte, i int) []byte {
	b = b[:0]
	if s.dirs > 1 {
		b = appendDirName(b, s.dirOf(i))
		b = append(b, '/')
	}
	b = s.base(b, i)
	return append(b, 0)
}

// appendHex is sprintf("%010x", v).
func appendHex(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	var tmp [16]byte
	n := 0
	for v > 0 || n < hexDigits {
		tmp[len(tmp)-1-n] = digits[v&15]
		v >>= 4
		n++
	}
	return append(b, tmp[len(tmp)-n:]...)
}

// appendDirName is sprintf("%05d", d).
func appendDirName(b []byte, d int) []byte {
	var tmp [8]byte
	n := 0
	for d > 0 || n < 5 {
		tmp[len(tmp)-1-n] = byte('0' + d%10)
		d /= 10
		n++
	}
	return append(b, tmp[len(tmp)-n:]...)
}

// shuffle is bonnie++'s random_sort: for each i, swap i with rand() % n.
func (s *nameSet) shuffle(rng *glibcrand.Rand) {
	if s.perm == nil {
		s.perm = make([]uint32, s.n)
		for i := range s.perm {
			s.perm[i] = uint32(i)
		}
	}
	for i := range s.perm {
		j := int(rng.Int()) % s.n
		s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
	}
}
