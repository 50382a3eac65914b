package offsets

// StridedZones is fio's zonemode=strided: I/O stays in a zone of Range
// bytes (0: Size) until Size bytes were issued there, then moves Range+Skip
// on, back to the region's start past its end (io_u.c:
// setup_strided_zone_mode). Size 0 is no zones (zonemode=none).
type StridedZones struct {
	Size, Range, Skip int64
}

// RangeIn is the zone range of a region of size bytes: Range, or Size
// when Range is 0.
func (z StridedZones) RangeIn(size int64) int64 {
	if z.Range > 0 {
		return z.Range
	}
	if z.Size > 0 {
		return z.Size // fio: zonerange defaults to zonesize
	}
	return size
}

// Problem is what is wrong with the zones on their own, and the option it
// concerns, or "": a range or skip without a size, a negative one.
func (z StridedZones) Problem() (flag, msg string) {
	switch {
	case z.Size == 0 && (z.Range != 0 || z.Skip != 0):
		return "--zonesize", "zonerange and zoneskip need zonemode=strided with a zonesize"
	case z.Size < 0 || z.Range < 0 || z.Skip < 0:
		return "--zonesize", "a zone size, range or skip is negative"
	}
	return "", ""
}

// Walk is a worker's place in fio's strided zones.
type Walk struct {
	size, rng, skip int64
	first, end      int64 // the region's first byte and the end of its last whole block
	start           int64 // the current zone's first byte
	bytes           int64 // issued in the current zone (fio's zone_bytes)
}

// NewWalk is the walk of z over the region of size bytes from offset,
// whose whole blocks end at end.
func NewWalk(z StridedZones, offset, size, end int64) Walk {
	return Walk{size: z.Size, rng: z.RangeIn(size), skip: z.Skip, first: offset, end: end, start: offset}
}

// Start is the current zone's first byte.
func (z *Walk) Start() int64 { return z.start }

// Step is fio's setup_strided_zone_mode, run before every I/O's offset
// with the I/O's size bs and its direction's sequential position pos:
// past zonesize bytes in a zone it moves zonerange+zoneskip on (back to
// the region's start past its end), and a position past the zone's end
// goes back to the zone's start. restart says the random map starts over,
// as it does every zonerange bytes.
func (z *Walk) Step(pos *int64, bs int64) (restart bool) {
	if z.bytes >= z.size {
		z.bytes = 0
		z.start += z.rng + z.skip
		if z.start >= z.end {
			z.start = z.first
		}
		*pos = z.start
	}
	if *pos >= z.start+z.rng {
		*pos = z.start
	}
	restart = z.bytes%z.rng == 0
	z.bytes += bs
	return restart
}
