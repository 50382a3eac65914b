package fiojob

// fio's own random generators and seeds, for the draws clyde must make as
// fio makes them (startdelay's range): lib/rand.c's Tausworthe generators
// (taus88 and, with random_generator=tausworthe64, taus258) and init.c's
// setup_random_seeds.

// fioRandSeed is fio's randseed default (options.c: .def = "0x89").
const fioRandSeed = 0x89

// fioRandStartDelay is FIO_RAND_START_DELAY, the index of startdelay's
// seed among a job's (fio.h).
const fioRandStartDelay = 13

// fioSeed is fio's rand_seeds[index] of the job numbered thread (from 1),
// as setup_random_seeds derives it from randseed when randrepeat is on or
// randseed is given.
func fioSeed(randseed uint64, thread, index int) uint64 {
	const m = 0x9e370001
	seed := randseed
	for range 4 {
		seed *= m
	}
	for range index {
		seed *= m
	}
	return seed*uint64(thread) + uint64(index)
}

// fioRand is one of fio's frand_state: taus88 (32-bit) or taus258.
type fioRand struct {
	use64          bool
	s1, s2, s3     uint32
	t1, t2, t3, t4 uint64
	t5             uint64
}

// seedOf is fio's __seed: a state word below m is raised by m.
func seedOf(x, m uint64) uint64 {
	if x < m {
		return x + m
	}
	return x
}

// newFioRand is fio's init_rand_seed: six cranks after an LCG fill. fio's
// start value "(2^31) + (2^17) + (2^7)" is C's exclusive or, 53.
func newFioRand(seed uint64, use64 bool) *fioRand {
	r := &fioRand{use64: use64}
	const start = (2 ^ 31) + (2 ^ 17) + (2 ^ 7)
	if !use64 {
		s := uint32(seed)
		lcg := func(x uint32) uint32 { return x*69069 ^ s }
		r.s1 = uint32(seedOf(uint64(lcg(start)), 1))
		r.s2 = uint32(seedOf(uint64(lcg(r.s1)), 7))
		r.s3 = uint32(seedOf(uint64(lcg(r.s2)), 15))
	} else {
		lcg := func(x uint64) uint64 { return x*6906969069 ^ seed }
		r.t1 = seedOf(lcg(start), 1)
		r.t2 = seedOf(lcg(r.t1), 7)
		r.t3 = seedOf(lcg(r.t2), 15)
		r.t4 = seedOf(lcg(r.t3), 33)
		r.t5 = seedOf(lcg(r.t4), 49)
	}
	for range 6 {
		r.next()
	}
	return r
}

// next is fio's __rand: __rand32 or __rand64.
func (r *fioRand) next() uint64 {
	if !r.use64 {
		taus := func(s uint32, a, b uint, c uint32, d uint) uint32 { return (s&c)<<d ^ ((s<<a)^s)>>b }
		r.s1 = taus(r.s1, 13, 19, 4294967294, 12)
		r.s2 = taus(r.s2, 2, 25, 4294967288, 4)
		r.s3 = taus(r.s3, 3, 11, 4294967280, 17)
		return uint64(r.s1 ^ r.s2 ^ r.s3)
	}
	step := func(s uint64, a, b uint, c uint64, d uint) uint64 { return (s&c)<<d ^ ((s<<a)^s)>>b }
	r.t1 = step(r.t1, 1, 53, 18446744073709551614, 10)
	r.t2 = step(r.t2, 24, 50, 18446744073709551104, 5)
	r.t3 = step(r.t3, 3, 23, 18446744073709547520, 29)
	r.t4 = step(r.t4, 5, 24, 18446744073709420544, 23)
	r.t5 = step(r.t5, 3, 33, 18446744073701163008, 8)
	return r.t1 ^ r.t2 ^ r.t3 ^ r.t4 ^ r.t5
}

// between is fio's rand_between(state, start, end): start plus
// rand32_upto or rand64_upto of end-start, the 32-bit one on the
// difference cut to 32 bits, as fio's.
func (r *fioRand) between(start, end uint64) uint64 {
	if !r.use64 {
		span := uint32(end - start)
		v := uint32(r.next())
		span++
		return start + uint64(uint32(int32(float64(span)*(float64(v)/(1<<32)))))
	}
	span := end - start
	v := r.next()
	span++
	return start + uint64(float64(span)*(float64(v)/(1<<32)/(1<<32)))
}
