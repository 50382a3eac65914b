package fileset

import (
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/offsets"
)

// Options are what a worker's walk through a set needs of its job.
type Options struct {
	// Regions are the files' regions (Lay), BS the job's block size.
	Regions []Region
	BS      int64
	Service Service
	// Open is the set's openfiles (Set.Open).
	Open int
	// Random says the rw mode is random: with RandomMap (fio's
	// norandommap=0) and a uniform Dist each file has a random map,
	// with a non-uniform Dist its offsets are drawn by it.
	Random, RandomMap bool
	Dist              offsets.Distribution
	// TimeBased starts a file's random map over once it is used up.
	TimeBased bool
	// DropOnOpen says a file's cache is dropped when it is opened again
	// or its random map starts over (fio's invalidate).
	DropOnOpen bool
	// The generators: RNG is the worker's own, which it also draws its
	// directions from (the random maps' orders and uniform offsets come
	// from it); Pick draws files uniformly, ServiceRNG by Service.Dist,
	// DistRNG the offsets by Dist.
	RNG, Pick, ServiceRNG, DistRNG *rand.PCG
}

// file is one file of a worker's walk: its region, fio's last_pos per
// direction, its random map (a permutation and the blocks drawn from it
// since the file was reset) or distribution, and its state.
type file struct {
	start, end, limit int64
	blocks            uint64
	pos               [2]int64
	perm              *offsets.Perm
	drawn             uint64
	dist              *offsets.Draw
	open, done        bool
	// opened says the file was open before: opening it again drops its
	// cached pages, as fio's td_io_open_file invalidates; dropDue says
	// that is to happen before its next I/O.
	opened, dropDue bool
}

// Walk is one worker's way through a set's files, one I/O at a time as
// fio 3.33's get_io_u makes it: the file (__get_next_file, with fio's
// openfiles), the direction, and the offset in that file
// (get_next_offset); a file that can place no I/O is closed and done
// (set_io_u_file), or with a non-uniform service reset. Ending passes
// and the job is the caller's: a pass is over when Place finds no I/O,
// and NewPass starts the next.
type Walk struct {
	files []file
	bs    int64
	rng   *rand.PCG
	// The service: kind, run (fio's file_service_nr), left (its
	// file_service_left, unsigned as fio's), cur (file_service_file;
	// -1: none), rr (next_file); pick draws random files, zipf a
	// non-uniform service's.
	kind       ServiceKind
	nonUniform bool
	run, left  uint32
	cur, rr    int
	pick       *rand.PCG
	zipf       *offsets.Draw
	// open is fio's open_files; nOpen and nDone its nr_open_files and
	// nr_done_files.
	open, nOpen, nDone int
	random             bool
	timeBased          bool
	dropOnOpen         bool
}

// IO is the next I/O of a walk: its file (an index into the regions),
// direction, offset, and whether the file's cache is to be dropped
// before it.
type IO struct {
	File, Dir int
	Offset    int64
	Drop      bool
}

// New starts a walk; every file is closed, none done.
func New(o Options) *Walk {
	k := &Walk{
		files: make([]file, len(o.Regions)), bs: o.BS, rng: o.RNG,
		kind: o.Service.Kind, nonUniform: o.Service.NonUniform(), run: uint32(1), cur: -1,
		pick: o.Pick, open: o.Open, random: o.Random, timeBased: o.TimeBased, dropOnOpen: o.DropOnOpen,
	}
	if k.kind == "" {
		k.kind = RoundRobin
	}
	if o.Service.Run > 0 {
		k.run = uint32(o.Service.Run) // fio's unsigned int: 1<<32 is its 0
	}
	if k.open == 0 || k.open > len(k.files) {
		k.open = len(k.files)
	}
	if k.nonUniform {
		k.zipf = offsets.NewDraw(o.Service.Dist, uint64(len(k.files))<<fsShift, 1, o.ServiceRNG)
	}
	mapped := o.Random && o.RandomMap && o.Dist.Uniform()
	for i, r := range o.Regions {
		f := &k.files[i]
		f.start, f.end, f.limit = r.Offset, r.Offset+r.Size, r.Limit
		f.blocks = uint64(max(r.Size, 0) / o.BS)
		switch {
		case !o.Random || f.blocks == 0:
		case mapped:
			f.perm = offsets.NewPerm(f.blocks, o.RNG)
		case !o.Dist.Uniform():
			f.dist = offsets.NewDraw(o.Dist, f.blocks, uint64(o.BS), o.DistRNG)
		}
		f.pos = [2]int64{f.start, f.start}
	}
	return k
}

// Start is the offset file i's region starts at.
func (k *Walk) Start(i int) int64 { return k.files[i].start }

// NewPass is fio's clear_io_state between passes: every file closed and
// no longer done, its positions and map reset when it is opened again.
func (k *Walk) NewPass() {
	for i := range k.files {
		f := &k.files[i]
		f.open, f.done = false, false
	}
	k.nOpen, k.nDone = 0, 0
}

// Place is fio's set_io_u_file: the next file, then the direction (dir
// draws it) and the offset in it; a file that can place none is closed
// and done, or with a non-uniform service reset, and the next is picked.
// false when every file is done: the pass is over.
func (k *Walk) Place(dir func() int) (IO, bool) {
	for {
		i := k.pickFile()
		if i < 0 {
			return IO{}, false
		}
		d := dir()
		f := &k.files[i]
		if off, ok := k.offset(f, d); ok {
			io := IO{File: i, Dir: d, Offset: off, Drop: f.dropDue}
			f.dropDue = false
			return io, true
		}
		f.open = false
		k.nOpen--
		if !k.nonUniform {
			f.done = true
			k.nDone++
		}
	}
}

// offset is fio's get_next_offset in file f: a random block of its
// region (the map's next, which runs out once every block was drawn: for
// a time-based job or a non-uniform service the map starts over and the
// file's cache is dropped, as get_next_rand_block's fio_file_reset and
// loop_cache_invalidate), or the direction's next block in sequence;
// false when fio's would fail (offset >= io_size, or past the file's
// real size).
func (k *Walk) offset(f *file, dir int) (int64, bool) {
	if k.random {
		if f.blocks == 0 {
			return 0, false
		}
		var b uint64
		switch {
		case f.dist != nil:
			b = f.dist.Next(dir)
		case f.perm != nil:
			if f.drawn >= f.blocks {
				if !k.timeBased && !k.nonUniform {
					return 0, false
				}
				f.drawn = 0
				f.dropDue = k.dropOnOpen
			}
			f.drawn++
			b = f.perm.Next()
		default:
			b = offsets.Below(k.rng, f.blocks)
		}
		return f.start + int64(b)*k.bs, true
	}
	off := f.pos[dir]
	if off >= f.end || off+k.bs > f.limit {
		return 0, false
	}
	f.pos[dir] = off + k.bs
	return off, true
}
