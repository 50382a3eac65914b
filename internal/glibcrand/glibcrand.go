// Package glibcrand reproduces glibc's rand() (the TYPE_3 additive feedback
// generator that srand/rand use by default), so that clyde fs -z SEED draws the
// same file names, file sizes and seek offsets as bonnie++ built on glibc.
// It also replays a list of numbers as bonnie++ -Z FILE does.
package glibcrand

// Rand is one stream of bonnie++'s random numbers: glibc's generator, or a
// list of numbers cycled. The zero value is not ready; use New or
// NewSequence.
type Rand struct {
	r    [34]uint32
	i    int // index of the next value to produce, modulo 34
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
	slot := g.i % 34
	v := g.r[(g.i-31)%34] + g.r[(g.i-3)%34]
	g.r[slot] = v
	g.i++
	if g.i >= 34*2 {
		g.i -= 34
	}
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
