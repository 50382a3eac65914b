// Package glibcrand reproduces glibc's rand() (the TYPE_3 additive feedback
// generator that srand/rand use by default), so that clyde fs -z SEED draws the
// same file names, file sizes and seek offsets as bonnie++ built on glibc.
// It also replays a list of numbers as bonnie++ -Z FILE does.
package glibcrand

// Rand is one stream of bonnie++'s random numbers: glibc's generator, or a
// list of numbers cycled. The zero value is not ready; use New or
// NewSequence.
type Rand struct {
	// r is a ring of the last values; 64 slots (31 would do) so that
	// indexing is a mask, not a division: fsbench draws billions of values
	// to regenerate file names.
	r    [64]uint32
	i    uint // index of the next value to produce; r[i%64] receives it
	seed uint32
	// seq is the -Z list, nil for the generator; pos is the index of the
	// value Int returned last, -1 before the first.
	seq []int32
	pos int
}

// New returns the stream srand(seed) starts.
func New(seed uint32) *Rand {
	g := &Rand{}
	g.Seed(seed)
	return g
}

// NewSequence returns the stream bonnie++'s Rand class gives after
// seedFile: nums in order, starting over after the last. nums must not be
// empty, and each must be 0..2147483647, as rand() returns.
func NewSequence(nums []int32) *Rand {
	if len(nums) == 0 {
		panic("glibcrand: empty sequence")
	}
	return &Rand{seq: nums, pos: -1}
}

// Reset starts the stream over: srand with the same seed, or the list from
// its first number. bonnie++ does this before every run of -x.
func (g *Rand) Reset() {
	if g.seq != nil {
		g.pos = -1
		return
	}
	g.Seed(g.seed)
}

// Seed restarts the stream as srand(seed) does; a sequence becomes the
// generator.
func (g *Rand) Seed(seed uint32) {
	g.seq, g.seed = nil, seed
	s := int32(seed)
	if s == 0 {
		s = 1
	}
	g.r[0] = uint32(s)
	for i := 1; i < 31; i++ {
		// 16807 * r[i-1] % 2147483647 without overflow (Schrage's method), as glibc does.
		prev := int32(g.r[i-1])
		hi := prev / 127773
		lo := prev % 127773
		word := 16807*lo - 2836*hi
		if word < 0 {
			word += 2147483647
		}
		g.r[i] = uint32(word)
	}
	for i := 31; i < 34; i++ {
		g.r[i] = g.r[i-31]
	}
	g.i = 34
	// glibc discards the first 310 outputs.
	for range 310 {
		g.next()
	}
}

func (g *Rand) next() uint32 {
	v := g.r[(g.i-31)&63] + g.r[(g.i-3)&63]
	g.r[g.i&63] = v
	g.i++
	return v
}

// Int returns the next value of rand(): 0..2147483647.
func (g *Rand) Int() int32 {
	if g.seq != nil {
		if g.pos++; g.pos >= len(g.seq) {
			g.pos = 0
		}
		return g.seq[g.pos]
	}
	return int32(g.next() >> 1)
}

// Mark is a stream's position in 128 bytes: the last 31 values the
// generator made (all its next values depend on), or the index into a -Z
// list. Rewinding to marks lets fsbench regenerate a million file names
// from a few thousand marks instead of keeping the names.
type Mark struct {
	last [31]uint32
	pos  int32
}

// Mark returns g's position, for Rewind.
func (g *Rand) Mark() Mark {
	var m Mark
	if g.seq != nil {
		m.pos = int32(g.pos)
		return m
	}
	for k := range m.last {
		m.last[k] = g.r[(g.i-31+uint(k))&63]
	}
	return m
}

// Rewind puts g back where it was when m was taken from it (or from a copy
// of it): the next Int returns what it returned then.
func (g *Rand) Rewind(m Mark) {
	if g.seq != nil {
		g.pos = int(m.pos)
		return
	}
	copy(g.r[:], m.last[:])
	g.i = 31
}

// SkipRuns passes over n runs of the stream, each a value v and then
// v % mod more values: bonnie++'s names are such runs (a length, then that
// many characters), and fsbench skips the ones before the name it needs.
// It leaves g where n runs of Int calls would.
func (g *Rand) SkipRuns(n int, mod int32) {
	if g.seq != nil {
		for range n {
			for range g.Int() % mod {
				g.Int()
			}
		}
		return
	}
	r, i := &g.r, g.i
	for range n {
		v := r[(i-31)&63] + r[(i-3)&63]
		r[i&63] = v
		i++
		for range int32(v>>1) % mod {
			r[i&63] = r[(i-31)&63] + r[(i-3)&63]
			i++
		}
	}
	g.i = i
}
