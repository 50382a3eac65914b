// Package glibcrand reproduces glibc's rand() (the TYPE_3 additive feedback
// generator that srand/rand use by default), so that clyde fs -z SEED draws the
// same file names, file sizes and seek offsets as bonnie++ built on glibc.
package glibcrand

// Rand is one glibc random stream. The zero value is not ready; use New.
type Rand struct {
	r [34]uint32
	i int // index of the next value to produce, modulo 34
}

// New returns the stream srand(seed) starts.
func New(seed uint32) *Rand {
	g := &Rand{}
	g.Seed(seed)
	return g
}

// Seed restarts the stream as srand(seed) does.
func (g *Rand) Seed(seed uint32) {
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
	return int32(g.next() >> 1)
}
