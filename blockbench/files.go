package blockbench

import (
	"fmt"
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/offsets"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// This file is fio 3.33's several files of one job: nrfiles and
// filename=a:b:c (a file set), filesize, file_service_type and openfiles.
// Its files are the workload's targets as a Volume's are (vol, opened by
// openVolume, each I/O's in w.lun), but not one address space: each file
// has a region of its own (filesetup.c setup_files), its own sequential
// positions and random map, and every I/O goes to the file the service
// picks (io_u.c __get_next_file). Every file is resolved, admitted and, when
// clyde makes it, created with its marker through the same one place as a
// single target (planResolver.target). A set whose one file takes the whole
// job runs as a single target does, at no cost per I/O (workload.resolve).

// FileSet is fio's files of one job, in fio's order: filename=a:b:c, or
// nrfiles names by filename_format.
type FileSet struct {
	Names []string
	// Size is fio's filesize; zero splits the workload's Size over the
	// files as fio does (size/nrfiles each, the first files a block more
	// while what the division leaves lasts).
	Size FileSize
	// Service picks the file of each I/O (fio's file_service_type).
	Service FileService
	// Open is fio's openfiles: at most this many files in use at once, a
	// file joining them when the service picks it and leaving once it
	// is done; 0 is every file.
	Open int
}

// FileSize is fio's filesize: every file Low bytes, or with High above
// Low a size drawn for each from Low up to High, cut to a whole block
// (filesetup.c get_rand_file_size). An existing file whose size is
// within Low..High keeps it (setup_files).
type FileSize struct {
	Low, High int64
	// Draws are the sizes of a range in the order fio 3.33 draws them
	// for this workload, one for each file that needs one (fiojob draws
	// them from fio's own generator and seed); past them clyde draws its
	// own from the workload's seed.
	Draws []int64
}

// ServiceKind is fio's file_service_type.
type ServiceKind string

// The services. Round robin is fio's default.
const (
	// ServiceRoundRobin takes the files in turn.
	ServiceRoundRobin ServiceKind = "roundrobin"
	// ServiceSequential keeps to one file until it is done.
	ServiceSequential ServiceKind = "sequential"
	// ServiceRandom draws a file, uniformly or by FileService.Dist.
	ServiceRandom ServiceKind = "random"
)

// FileService is how each I/O's file is picked.
type FileService struct {
	// Kind is the service; "" is round robin.
	Kind ServiceKind
	// Run is how many I/Os in a row go to a picked file before the next
	// pick (fio's ":N", file_service_nr); 0 is 1. fio counts it in an
	// unsigned int, so its own 0 is 1<<32.
	Run int64
	// Dist, with ServiceRandom, draws the files by fio's zipf, pareto or
	// normal (gauss) with its parameter and center; the zero value is
	// uniform. A non-uniform service never marks a file done: one that
	// can place no I/O starts over (io_u.c set_io_u_file).
	Dist Distribution
}

// nonUniform says files are drawn by a distribution (fio's
// __FIO_FSERVICE_NONUNIFORM).
func (s FileService) nonUniform() bool { return s.Kind == ServiceRandom && !s.Dist.Uniform() }

// fsShift is fio's FIO_FSERVICE_SHIFT: a non-uniform service draws one
// of nrfiles<<10 ranges and takes the file by shifting back.
const fsShift = 10

// validateFiles holds a file set to its rules and to what clyde runs
// with several files.
func (w *Workload) validateFiles() error {
	fs := w.Files
	if fs == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, n := range fs.Names {
		switch {
		case n == "":
			return result.Usagef("--filename", "job %s: a file of its file set has no name", w.Name)
		case seen[n]:
			return result.Usagef("--filename", "job %s: %s is listed twice; give each file once", w.Name, n)
		}
		seen[n] = true
	}
	s := fs.Service
	switch {
	case len(fs.Names) == 0:
		return result.Usagef("--filename", "job %s: a file set needs at least one file", w.Name)
	case w.Filename != "" || w.Volume != nil:
		return result.Usagef("--filename", "job %s: a file set names its files itself; give no other file or volume", w.Name)
	case fs.Open < 0:
		return result.Usagef("--openfiles", "%d is negative; give the files open at once, 0 for all", fs.Open)
	case fs.Size.Low < 0 || fs.Size.High < fs.Size.Low || fs.Size.Low == 0 && fs.Size.High != 0:
		// fio lays out a file of up to 16 EiB for a range that ends
		// before it starts (its unsigned high-low).
		return result.Usagef("--filesize", "%d-%d is not a size or a range from low to high", fs.Size.Low, fs.Size.High)
	case s.Run < 0:
		return result.Usagef("--file_service_type", "%d I/Os per file is negative", s.Run)
	case s.Kind != "" && s.Kind != ServiceRoundRobin && s.Kind != ServiceSequential && s.Kind != ServiceRandom:
		return result.Usagef("--file_service_type", "unknown service %q; give random, roundrobin, sequential, zipf, pareto or normal", s.Kind)
	case !s.Dist.Uniform() && (s.Kind != ServiceRandom || s.Dist.Kind == DistZoned || s.Dist.Kind == DistZonedAbs):
		return result.Usagef("--file_service_type", "a distribution of files is zipf, pareto or normal (gauss)")
	case len(fs.Names) > 1 && w.Diskless():
		return result.Usagef("--nrfiles", "job %s: ioengine=null opens no file, so %d of them are one; give nrfiles=1", w.Name, len(fs.Names))
	}
	if !s.Dist.Uniform() {
		d := Workload{Distribution: s.Dist}
		if msg := d.randomDistributionProblem(); msg != "" {
			return result.Usagef("--file_service_type", "%s", msg)
		}
	}
	if len(fs.Names) > 1 {
		return w.filesUnsupported()
	}
	return nil
}

// filesUnsupported refuses what clyde does not run on several files:
// each of these keeps the state of one region, or syncs one descriptor.
func (w *Workload) filesUnsupported() error {
	no := func(flag, what string) error {
		return result.Usagef(flag, "job %s: %s is not supported with several files (nrfiles, filename=a:b); give one file", w.Name, what)
	}
	switch {
	case w.Access != nil:
		return no("--access", "an access specification")
	case w.Sizes != nil:
		return no("--bs", "block sizes that vary (bs=R,W, bsrange, bssplit)")
	case w.Zones.Size > 0:
		return no("--zonemode", "zonemode=strided")
	case w.SeqGap != 0 || w.SeqRepeat > 1:
		return no("--rw", "rw=MODE:N (a gap or a run of I/Os per draw)")
	case w.Verify != VerifyNone || w.VerifyBacklog > 0:
		return no("--verify", "verify")
	case w.RW.Discards():
		return no("--rw", "rw="+string(w.RW))
	case w.Fsync > 0 || w.Fdatasync > 0 || w.EndFsync || w.FsyncOnClose:
		return no("--fsync", "fsync, fdatasync, end_fsync or fsync_on_close")
	case w.Region.SizePercent > 0 || w.Region.IOSizePercent > 0:
		return no("--size", "a size in percent")
	case w.IOEngine == EngineMmap || w.IOEngine == EngineWindowsAIO:
		return no("--ioengine", "ioengine="+string(w.IOEngine))
	}
	return nil
}

// fileRegion is one file of a set as its workload uses it: fio's
// file_offset, io_size and real_file_size (limit: no I/O ends past it).
type fileRegion struct{ offset, size, limit int64 }

// layFileSets places every file set's files in the plan's order, as fio
// sets up each job's files before the next job's (setup_files): a file
// clyde creates is, to the jobs after, as large as the jobs before it
// laid it out.
func layFileSets(groups [][]*workload) error {
	laid := map[*target]int64{}
	for _, ws := range groups {
		for _, w := range ws {
			if w.Files == nil {
				continue
			}
			if err := w.layFiles(laid); err != nil {
				return err
			}
		}
	}
	return nil
}

// layFiles is fio 3.33's setup_files for one workload: each file's
// offset (get_start_offset, of the file's size), its io_size (size/nrfiles
// and a block more for the first files while the remainder lasts; or
// filesize, fixed or drawn, unless the existing file is within the range;
// or, with neither, the rest of the file), and the job's size: the files'
// sum, or size= when smaller. A diskless workload's file has no size
// (fio's real_file_size -1).
func (w *workload) layFiles(laid map[*target]int64) error {
	fs := w.Files
	shares := w.sizeShares()
	draw := w.fileSizeDraws()
	regs := make([]fileRegion, len(fs.Names))
	var total int64
	for i := range regs {
		real, name := int64(-1), string(EngineNull)
		var t *target
		if w.vol != nil {
			t = w.vol[i]
			real, name = t.size, t.given
			if !t.exists {
				real = laid[t]
			}
		}
		off, _ := w.place(max(real, 0))
		var size int64
		switch {
		case fs.Size.Low == 0:
			size = shares[i]
			if size == 0 && real >= 0 {
				if off > real {
					return result.Usagef("--offset", "job %s: offset %d is past the end of %s (%d bytes)", w.Name, off, name, real)
				}
				size = real - off
			}
		case real < fs.Size.Low || real > fs.Size.High:
			if off > fs.Size.Low {
				// fio: "you need to specify valid offset="
				return result.Usagef("--offset", "job %s: offset %d is past filesize %d", w.Name, off, fs.Size.Low)
			}
			size = fs.Size.Low - off
			if fs.Size.High != fs.Size.Low {
				size = draw(i) - off
			}
		default:
			size = real - off
		}
		regs[i] = fileRegion{offset: off, size: size, limit: max(real, off+size)}
		if t != nil && !t.exists {
			laid[t] = max(laid[t], off+size)
		}
		total += size
	}
	if total == 0 {
		return result.Usagef("--size", "job %s: its files do not exist and it gives no size; give size= or filesize= (fio: you need to specify size=)", w.Name)
	}
	w.fileRegs, w.fileBudget = regs, total
	if w.Size > 0 && w.Size < total {
		w.fileBudget = w.Size
	}
	return nil
}

// sizeShares are the files' shares of size= when the set has no filesize
// (setup_files): size/nrfiles each, the first files a block (fio's
// td_min_bs) more while what the division leaves lasts; all 0 without
// size=, each file then the rest of the file.
func (w *workload) sizeShares() []int64 {
	n := int64(len(w.Files.Names))
	shares := make([]int64, n)
	if w.Files.Size.Low != 0 || w.Size <= 0 {
		return shares
	}
	per := w.Size / n
	extra := (w.Size - per*n) / w.minBS()
	for i := range shares {
		shares[i] = per
		if int64(i) < extra {
			shares[i] += w.minBS()
		}
	}
	return shares
}

// fileSizeDraws is the draw of file i's size in a filesize range: fio's
// draws (FileSize.Draws) in order, then clyde's own, each as fio's
// get_rand_file_size makes it (low plus the range times a draw below 1,
// cut to a whole block).
func (w *workload) fileSizeDraws() func(i int) int64 {
	fs := w.Files.Size
	k := 0
	rng := newRand(w.Seed^0xf11e5, uint64(w.CloneIndex)+1)
	return func(int) int64 {
		if k < len(fs.Draws) {
			k++
			return fs.Draws[k-1]
		}
		r := uint32(rng.Uint64() >> 32)
		v := fs.Low + int64(float64(fs.High-fs.Low)*(float64(r)/(frand32Max+1.0)))
		return v - v%w.minBS()
	}
}

// fileSetRegion checks every file's region against the file and is the
// workload's region: the first file's offset and the job's bytes per pass
// (fio's size). A set of one file that takes the whole job, or runs for a
// time (fio's nr_files == 1 rules), is that file's region alone, and runs
// as a single target does.
func (w *workload) fileSetRegion() (region, error) {
	for i, r := range w.fileRegs {
		if w.vol == nil {
			break
		}
		t := w.vol[i]
		switch {
		case r.size < 0:
			return region{}, result.Usagef("--offset", "job %s: offset %d is past the end of %s", w.Name, r.offset, t.given)
		case t.exists && r.offset+r.size > t.size:
			return region{}, result.Usagef("--filesize", "job %s: offset %d + size %d runs past the end of %s (%d bytes); clyde does not extend an existing file",
				w.Name, r.offset, r.size, t.given, t.size)
		}
	}
	if len(w.fileRegs) == 1 && (w.TimeBased || w.fileBudget >= w.fileRegs[0].size || w.Diskless()) {
		r := w.fileRegs[0]
		if w.Diskless() {
			r.size = w.fileBudget
			w.target.size = max(w.target.size, r.offset+r.size)
		}
		w.fileRegs, w.vol = nil, nil
		return region{offset: r.offset, size: r.size}, nil
	}
	if err := w.filesUnsupported(); err != nil {
		return region{}, err
	}
	if w.Files.Service.nonUniform() {
		for i, r := range w.fileRegs {
			if r.size < w.BS {
				// fio would reset and pick it again for ever.
				return region{}, result.Usagef("--file_service_type", "job %s: %s holds no whole block of %d bytes, and a %s service never leaves a file done",
					w.Name, w.Files.Names[i], w.BS, w.Files.Service.Dist.Kind)
			}
		}
	}
	return region{offset: w.fileRegs[0].offset, size: w.fileBudget}, nil
}

// targets are the workload's targets: a file set's or volume's files, or
// its one target.
func (w *workload) targets() []*target {
	if w.vol != nil {
		return w.vol
	}
	return []*target{w.target}
}

// fileRegionOn is the region of w on t when t is one of w's file set.
func (w *workload) fileRegionOn(t *target) (fileRegion, bool) {
	if w.fileRegs == nil {
		return fileRegion{}, false
	}
	for i, m := range w.vol {
		if m == t {
			return w.fileRegs[i], true
		}
	}
	return fileRegion{}, false
}

// setFile is one file of a worker's set: its region, fio's last_pos per
// direction, its random map (a permutation and the blocks drawn from it
// since the file was reset) or distribution, and its state.
type setFile struct {
	start, end, limit int64
	blocks            uint64
	pos               [2]int64
	perm              *blockPerm
	drawn             uint64
	dist              *offsetDraw
	open, done        bool
	// opened says the file was open before: opening it again drops its
	// cached pages, as fio's td_io_open_file invalidates; dropDue says
	// that is to happen before its next I/O.
	opened, dropDue bool
}

// fileCount is what a worker issued to one file.
type fileCount struct{ ios, bytes [2]int64 }

// filesPattern is fio's rw modes over a file set, one I/O at a time as
// fio 3.33's get_io_u makes it: the file (__get_next_file, with fio's
// openfiles), the direction, and the offset in that file (get_next_offset);
// a file that can place no I/O is closed and done (set_io_u_file), or with
// a non-uniform service reset. A pass ends when every file is done, or for
// an engine that queues once its I/Os add up to the job's size (do_io's
// bytes_issued); loops= runs that many passes, every file reset and
// reopened for each, until the job's I/Os add up to its size times loops
// (io_issue_bytes_exceeded); with io_size=, that times loops, in as many
// passes as it takes (keep_running). A time-based job starts a new pass
// until its runtime is over. The pattern draws one I/O ahead, so the last
// is known (worker.remaining).
type filesPattern struct {
	files  []setFile
	counts []fileCount
	bs     int64
	// The service: kind, run (fio's file_service_nr), left (its
	// file_service_left, unsigned as fio's), cur (file_service_file;
	// -1: none), rr (next_file); pick draws random files, zipf a
	// non-uniform service's.
	kind       ServiceKind
	nonUniform bool
	run, left  uint32
	cur, rr    int
	pick       *rand.PCG
	zipf       *offsetDraw
	// open is fio's open_files; nOpen and nDone its nr_open_files and
	// nr_done_files.
	open, nOpen, nDone int
	random             bool
	timeBased          bool
	passes
	dropOnOpen bool
	// The I/O drawn ahead: have says it is there, nDrop that its file's
	// cache is dropped before it.
	have        bool
	nDir, nFile int
	nOff        int64
	nDrop       bool
}

func newFilesPattern(w *worker) *filesPattern {
	spec := w.spec
	fs := spec.Files
	p := &filesPattern{
		files: make([]setFile, len(spec.fileRegs)), counts: make([]fileCount, len(spec.fileRegs)), bs: spec.BS,
		kind: fs.Service.Kind, nonUniform: fs.Service.nonUniform(), run: uint32(1), cur: -1,
		pick: newRand(spec.Seed^0xf11e, w.index+1), open: fs.Open,
		random: spec.RW.Random(), timeBased: spec.TimeBased,
	}
	p.passes = newPasses(spec, spec.fileBudget)
	if p.kind == "" {
		p.kind = ServiceRoundRobin
	}
	if fs.Service.Run > 0 {
		p.run = uint32(fs.Service.Run) // fio's unsigned int: 1<<32 is its 0
	}
	if p.open == 0 || p.open > len(p.files) {
		p.open = len(p.files)
	}
	if p.nonUniform {
		d := fs.Service.Dist
		p.zipf = offsets.NewDraw(d, uint64(len(p.files))<<fsShift, 1, newRand(spec.Seed^0xf11ed157, w.index+1))
	}
	p.dropOnOpen = spec.Invalidate && !spec.Direct && osio.CanAdviseAccess && !spec.Diskless()
	mapped := p.random && spec.RandomMap && spec.Distribution.Uniform()
	distRng := newRand(spec.Seed^0xd157, w.index+1)
	for i, r := range spec.fileRegs {
		f := &p.files[i]
		f.start, f.end, f.limit = r.offset, r.offset+r.size, r.limit
		f.blocks = uint64(max(r.size, 0) / spec.BS)
		switch {
		case !p.random || f.blocks == 0:
		case mapped:
			f.perm = offsets.NewPerm(f.blocks, w.rng)
		case !spec.Distribution.Uniform():
			f.dist = offsets.NewDraw(spec.Distribution, f.blocks, uint64(spec.BS), distRng)
		}
		f.pos = [2]int64{f.start, f.start}
	}
	return p
}

func (p *filesPattern) maxSize(*worker) int { return int(p.bs) }

// restart gives the measured part of a job its whole bytes and passes at
// the end of its ramp, as startMeasuring gives fioPattern's its I/O
// count; what the ramp issued to each file is not counted.
func (p *filesPattern) restart() {
	clear(p.counts)
	if p.total == 0 {
		return
	}
	p.issued, p.passesLeft = 0, p.loops-1
	if p.have {
		p.issued = p.bs
	}
}

func (p *filesPattern) next(w *worker) (int, int64, int) {
	if !p.have && !p.pull(w) {
		// Asked past the job's last I/O (a ramp that ended the job): a
		// pass of its own.
		p.restart()
		p.newPass()
		if !p.pull(w) {
			w.remaining = min(w.remaining, 1)
			w.lun = 0
			return w.pickDir(), p.files[0].start, int(p.bs) // layFiles leaves the job a block
		}
	}
	dir, off, f := p.nDir, p.nOff, p.nFile
	if p.nDrop {
		w.dropMember(f)
	}
	w.lun = f
	c := &p.counts[f]
	c.ios[dir]++
	c.bytes[dir] += p.bs
	p.have = false
	if !p.pull(w) {
		w.remaining = min(w.remaining, 1) // this one is the last
	}
	return dir, off, int(p.bs)
}

// pull draws the next I/O ahead; false when the job has none left.
func (p *filesPattern) pull(w *worker) bool {
	if p.total > 0 && p.issued >= p.total {
		return false // io_issue_bytes_exceeded
	}
	for range 2 {
		if (p.budget == 0 || p.passBytes < p.budget) && p.place(w) {
			f := &p.files[p.nFile]
			p.have, p.nDrop, f.dropDue = true, f.dropDue, false
			return true
		}
		// The pass is over: its bytes are issued, or every file is done.
		switch {
		case p.passesLeft > 0:
			p.passesLeft--
		case p.passesLeft == 0 && (p.ioSize == 0 || p.ioSize-p.issued < p.bs):
			return false // keep_running: the loops are done, io_size too
		}
		p.newPass()
	}
	return false
}

// newPass is fio's clear_io_state between passes: every file closed and
// no longer done, its positions and map reset when it is opened again.
func (p *filesPattern) newPass() {
	for i := range p.files {
		f := &p.files[i]
		f.open, f.done = false, false
	}
	p.nOpen, p.nDone, p.passBytes = 0, 0, 0
}

// place is fio's set_io_u_file: the next file, then the direction and
// the offset in it; a file that can place none is closed and done, or
// with a non-uniform service reset, and the next is picked.
func (p *filesPattern) place(w *worker) bool {
	for {
		i := p.pickFile()
		if i < 0 {
			return false
		}
		dir := w.pickDir()
		if off, ok := p.offset(w, i, dir); ok {
			p.nDir, p.nOff, p.nFile = dir, off, i
			p.passBytes += p.bs
			p.issued += p.bs
			return true
		}
		f := &p.files[i]
		f.open = false
		p.nOpen--
		if !p.nonUniform {
			f.done = true
			p.nDone++
		}
	}
}

// offset is fio's get_next_offset in file i: a random block of its
// region (the map's next, which runs out once every block was drawn: for
// a time-based job or a non-uniform service the map starts over and the
// file's cache is dropped, as get_next_rand_block's fio_file_reset and
// loop_cache_invalidate), or the direction's next block in sequence;
// false when fio's would fail (offset >= io_size, or past the file's
// real size).
func (p *filesPattern) offset(w *worker, i, dir int) (int64, bool) {
	f := &p.files[i]
	if p.random {
		if f.blocks == 0 {
			return 0, false
		}
		var b uint64
		switch {
		case f.dist != nil:
			b = f.dist.Next(dir)
		case f.perm != nil:
			if f.drawn >= f.blocks {
				if !p.timeBased && !p.nonUniform {
					return 0, false
				}
				f.drawn = 0
				f.dropDue = p.dropOnOpen
			}
			f.drawn++
			b = f.perm.Next()
		default:
			b = below(w.rng, f.blocks)
		}
		return f.start + int64(b)*p.bs, true
	}
	off := f.pos[dir]
	if off >= f.end || off+p.bs > f.limit {
		return 0, false
	}
	f.pos[dir] = off + p.bs
	return off, true
}

// pickFile is fio's __get_next_file: the file of the last pick while its
// run lasts (sequential: while it is open), else the next by the
// service; -1 when every file is done.
func (p *filesPattern) pickFile() int {
	if p.nDone >= len(p.files) {
		return -1
	}
	if c := p.cur; c >= 0 && p.files[c].open {
		if p.kind == ServiceSequential {
			return c
		}
		if p.left != 0 {
			p.left--
			return c
		}
	}
	var i int
	if p.kind == ServiceRandom {
		i = p.pickRandom()
	} else {
		i = p.pickRR()
	}
	if i >= 0 {
		p.cur, p.left = i, p.run-1
	}
	return i
}

// pickRR is fio's get_next_file_rr: the files in turn from next_file,
// skipping the done ones; a file not open is opened unless openfiles are
// open already, when fio's -EBUSY has do_io ask again, from the file
// after it.
func (p *filesPattern) pickRR() int {
	for range 2*len(p.files) + 1 {
		i := p.rr
		if p.rr++; p.rr >= len(p.files) {
			p.rr = 0
		}
		if p.usable(i) {
			return i
		}
	}
	return -1
}

// maxFileDraws bounds the draws of one random pick: fio draws again for
// ever while its draws land on done files or on closed ones with openfiles
// open; past this many clyde takes the first usable file instead.
const maxFileDraws = 1 << 20

// pickRandom is fio's get_next_file_rand: a file drawn uniformly (fio's
// nr_files * r / (max+1)) or by the service's distribution over
// nr_files<<10 ranges, unhashed (init_rand_file_service), drawn again
// while it lands on a done file or a closed one fio could not open.
func (p *filesPattern) pickRandom() int {
	n := uint64(len(p.files))
	for range maxFileDraws {
		var i uint64
		if p.zipf != nil {
			i = p.zipf.Unhashed() >> fsShift
		} else {
			i = below(p.pick, n)
		}
		if p.usable(int(i)) {
			return int(i)
		}
	}
	for i := range p.files {
		if p.usable(i) {
			return i
		}
	}
	return -1
}

// usable says file i can take the next I/O, opening it when there is
// room (fio's td_io_open_file, which resets its positions and map).
func (p *filesPattern) usable(i int) bool {
	f := &p.files[i]
	switch {
	case f.done:
		return false
	case f.open:
		return true
	case p.nOpen >= p.open:
		return false // fio's -EBUSY
	}
	f.open = true
	p.nOpen++
	f.pos = [2]int64{f.start, f.start}
	f.drawn = 0
	f.dropDue = f.opened && p.dropOnOpen
	f.opened = true
	return true
}

// dropMember drops the cached pages of member i before an I/O, as fio
// invalidates a file it reopens or whose random map starts over.
func (w *worker) dropMember(i int) {
	if err := dropCache(w.hs[i]); err != nil {
		w.fail(fmt.Errorf("invalidate %s: %w", w.spec.vol[i].given, err))
	}
}

// summarizeFiles adds what each file of the job's file sets was issued,
// its workers' counts summed by file, to the job.
func summarizeFiles(job *result.BlockJob, workers []*worker) {
	at := map[string]int{}
	for _, w := range workers {
		p, ok := w.pattern.(*filesPattern)
		if !ok {
			continue
		}
		for i, c := range p.counts {
			name := w.spec.vol[i].given
			k, seen := at[name]
			if !seen {
				k = len(job.Files)
				at[name] = k
				job.Files = append(job.Files, result.BlockFile{Path: name})
			}
			f := &job.Files[k]
			f.ReadIOs += c.ios[dirRead]
			f.ReadBytes += c.bytes[dirRead]
			f.WriteIOs += c.ios[dirWrite]
			f.WriteBytes += c.bytes[dirWrite]
		}
	}
}
