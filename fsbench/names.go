package fsbench

import "github.com/clydebench/clyde/internal/glibcrand"

// randChars is bonnie++'s alphabet for the random part of file names.
const randChars = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

const (
	maxRandLen = 12 // RandExtraLen
	hexDigits  = 10
)

// markEvery is how many files share one mark of the random stream: a
// random-order name costs regenerating up to this many names (a few hundred
// nanoseconds), and the marks cost 128/markEvery bytes per file.
const markEvery = 64

// nameSet is one test's files: bonnie++'s names (a 10-digit hex index and up
// to 12 random characters), sizes and directory placement. Nothing is kept
// per file but the random order: the names and sizes are drawn again from
// marks of the random stream, so a million files cost 2 MiB of marks
// (and 4 MiB of order with a seed the user gave), where keeping the names
// and the order took 17 MiB.
type nameSet struct {
	n int
	// spread is the count the files' directories were drawn for: n, until
	// a stonewall truncates the set.
	spread int
	random bool // random-name set: random part first, then the index
	dirs   int  // directories the files are spread over
	// marks[k] is the stream where file k*markEvery's name starts.
	marks []glibcrand.Mark
	// names is a copy of the stream that regenerates names; nameAt is the
	// file whose name it draws next.
	names  glibcrand.Rand
	nameAt int
	// sizes draws file sizes in order from sizeMark (when sizeSpan > 0);
	// sizeAt is the file whose size it draws next.
	sizes    glibcrand.Rand
	sizeMark glibcrand.Mark
	sizeAt   int
	sizeMin  int64
	sizeSpan int32
	size     int64 // every file's size when sizeSpan is 0
	// The random stat and delete visit files in perm's order (bonnie++'s
	// random_sort, when exactOrder) or order's; see shuffle.
	exactOrder bool
	perm       []uint32
	order      feistelOrder
	extra      [maxRandLen]byte
	// prefix starts every name: the worker's, in a shared tree.
	prefix []byte
}

// newNameSet draws names, then sizes, from rng in bonnie++'s order, so the
// same -z seed gives the same names and sizes; it marks where they are
// and leaves rng after them, as drawing them all would. The marks go into
// prev's when it has room (the sequential set's, for the random set), so
// the two sets' marks are never both on the heap.
func newNameSet(rng *glibcrand.Rand, n int, random bool, o *Options, prev *nameSet) *nameSet {
	need := (n + markEvery - 1) / markEvery
	var marks []glibcrand.Mark
	if prev != nil && cap(prev.marks) >= need {
		marks = prev.marks[:0]
	} else {
		marks = make([]glibcrand.Mark, 0, need)
	}
	s := &nameSet{n: n, spread: n, random: random, dirs: o.Dirs, exactOrder: !o.seedDrawn, marks: marks}
	for i := range n {
		if i%markEvery == 0 {
			s.marks = append(s.marks, rng.Mark())
		}
		rng.SkipRuns(1, maxRandLen+1)
	}
	switch {
	case o.MaxFileBytes > 0 && o.MaxFileBytes != o.MinFileBytes:
		s.sizeMin, s.sizeSpan = o.MinFileBytes, int32(o.MaxFileBytes-o.MinFileBytes+1)
		s.sizeMark = rng.Mark()
		for range n {
			rng.Int()
		}
	case o.MaxFileBytes > 0:
		s.size = o.MaxFileBytes
	}
	s.names, s.sizes = *rng, *rng
	s.nameAt, s.sizeAt = n, n // positioned nowhere yet: the first use rewinds
	return s
}

// truncate keeps the first n files (a stonewall stopped the create
// phase there): the later phases visit only those.
func (s *nameSet) truncate(n int) {
	if n < s.n {
		s.n = n
		s.sizeAt = min(s.sizeAt, n)
		s.nameAt = min(s.nameAt, n)
	}
}

// fileSize is file i's size in bytes. Sizes are drawn in order, as the
// create test asks for them; going back starts the draws over.
func (s *nameSet) fileSize(i int) int64 {
	if s.sizeSpan == 0 {
		return s.size
	}
	if i < s.sizeAt || s.sizeAt >= s.n {
		s.sizes.Rewind(s.sizeMark)
		s.sizeAt = 0
	}
	for ; s.sizeAt < i; s.sizeAt++ {
		s.sizes.Int()
	}
	s.sizeAt++
	return s.sizeMin + int64(s.sizes.Int()%s.sizeSpan)
}

// randomPart returns file i's random characters. In index order it draws
// straight on; otherwise it rewinds to the nearest mark before i and skips
// the names between.
func (s *nameSet) randomPart(i int) []byte {
	if i != s.nameAt {
		s.names.Rewind(s.marks[i/markEvery])
		s.names.SkipRuns(i%markEvery, maxRandLen+1)
	}
	l := int(s.names.Int() % (maxRandLen + 1))
	for k := range l {
		s.extra[k] = randChars[s.names.Int()%int32(len(randChars))]
	}
	s.nameAt = i + 1
	return s.extra[:l]
}

// dirOf spreads files evenly: bonnie++ gave every directory one file too many
// and the last one the shortfall.
func (s *nameSet) dirOf(i int) int {
	return int(int64(i) * int64(s.dirs) / int64(s.spread))
}

// base appends file i's name (without directory) to b.
func (s *nameSet) base(b []byte, i int) []byte {
	b = append(b, s.prefix...)
	extra := s.randomPart(i)
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

// shuffle draws the order of the random stat or delete test before its
// clock starts. With a seed the user gave (-z, -Z) it is bonnie++'s
// random_sort, draw for draw (for each i, swap i with rand() % n), which
// needs 4 bytes per file; otherwise a keyed bijection of the indexes
// (feistelOrder), which needs none, so memory does not grow with -n. Both
// visit every file exactly once in an order drawn from the run's stream.
func (s *nameSet) shuffle(rng *glibcrand.Rand) {
	if !s.exactOrder {
		s.order = newFeistelOrder(rng, s.n)
		return
	}
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

// visit is the index of the k-th file the random stat or delete visits.
func (s *nameSet) visit(k int) int {
	if s.perm != nil {
		return int(s.perm[k])
	}
	return s.order.at(k)
}

// feistelOrder is a pseudo-random permutation of 0..n-1 in O(1) memory: a
// four-round Feistel network on the smallest even number of bits that
// covers n, keyed from the random stream, with cycle walking (an index
// that lands at n or beyond is enciphered again) to stay below n. The
// domain is under 4n, so a visit takes four encipherings at most on
// average.
type feistelOrder struct {
	n    uint64
	half uint   // bits in each half
	mask uint64 // (1 << half) - 1
	keys [4]uint64
}

func newFeistelOrder(rng *glibcrand.Rand, n int) feistelOrder {
	o := feistelOrder{n: uint64(n), half: 1}
	for uint64(1)<<(2*o.half) < o.n {
		o.half++
	}
	o.mask = 1<<o.half - 1
	for k := range o.keys {
		o.keys[k] = uint64(rng.Int())<<32 | uint64(rng.Int())
	}
	return o
}

// at enciphers k until it falls below n.
func (o feistelOrder) at(k int) int {
	x := uint64(k)
	for {
		l, r := x>>o.half, x&o.mask
		for _, key := range o.keys {
			l, r = r, l^(mix64(r^key)&o.mask)
		}
		x = l<<o.half | r
		if x < o.n {
			return int(x)
		}
	}
}

// mix64 is splitmix64's finalizer: every input bit moves every output bit.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
