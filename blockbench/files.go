package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/internal/fileset"
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

// The set and its mechanism (the layout's arithmetic, the service, each
// worker's walk through the files) are internal/fileset; these are their
// names in blockbench's API.

// FileSet is fio's files of one job (fileset.Set).
type FileSet = fileset.Set

// FileSize is fio's filesize (fileset.Size).
type FileSize = fileset.Size

// ServiceKind is fio's file_service_type (fileset.ServiceKind).
type ServiceKind = fileset.ServiceKind

// The services. Round robin is fio's default.
const (
	ServiceRoundRobin = fileset.RoundRobin
	ServiceSequential = fileset.Sequential
	ServiceRandom     = fileset.Random
)

// FileService is how each I/O's file is picked (fileset.Service).
type FileService = fileset.Service

// validateFiles holds a file set to its rules and to what clyde runs
// with several files.
func (w *Workload) validateFiles() error {
	fs := w.Files
	if fs == nil {
		return nil
	}
	if msg := fs.NamesProblem(); msg != "" {
		return result.Usagef("--filename", "job %s: %s", w.Name, msg)
	}
	if w.Filename != "" || w.Volume != nil {
		return result.Usagef("--filename", "job %s: a file set names its files itself; give no other file or volume", w.Name)
	}
	if flag, msg := fs.Problem(); msg != "" {
		return result.Usagef(flag, "%s", msg)
	}
	if len(fs.Names) > 1 && w.Diskless() {
		return result.Usagef("--nrfiles", "job %s: ioengine=null opens no file, so %d of them are one; give nrfiles=1", w.Name, len(fs.Names))
	}
	if msg := fs.Service.Dist.Problem(); msg != "" {
		return result.Usagef("--file_service_type", "%s", msg)
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

// fileRegion is one file of a set as its workload uses it
// (fileset.Region).
type fileRegion = fileset.Region

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
// offset (get_start_offset, of the file's size) and region
// (fileset.Size.Lay: its share of size=, or filesize, fixed or drawn, or
// the rest of the file), and the job's size: the files' sum, or size=
// when smaller. A diskless workload's file has no size (fio's
// real_file_size -1).
func (w *workload) layFiles(laid map[*target]int64) error {
	fs := w.Files
	shares := fs.Shares(w.Size, w.minBS())
	draw := fs.Size.Drawer(w.minBS(), newRand(w.Seed^0xf11e5, uint64(w.CloneIndex)+1))
	regs := make([]fileRegion, len(fs.Names))
	var total int64
	for i := range regs {
		real, name := int64(-1), string(EngineNull)
		var t *target
		if w.vol != nil {
			t = w.vol[i]
			real, name = t.Size, t.Given
			if !t.Exists {
				real = laid[t]
			}
		}
		off, _ := w.place(max(real, 0))
		r, err := fs.Size.Lay(name, real, off, shares[i], draw)
		if err != nil {
			return result.Usagef("--offset", "job %s: %v", w.Name, err)
		}
		regs[i] = r
		if t != nil && !t.Exists {
			laid[t] = max(laid[t], r.Offset+r.Size)
		}
		total += r.Size
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
		case r.Size < 0:
			return region{}, result.Usagef("--offset", "job %s: offset %d is past the end of %s", w.Name, r.Offset, t.Given)
		case t.Exists && r.Offset+r.Size > t.Size:
			return region{}, result.Usagef("--filesize", "job %s: offset %d + size %d runs past the end of %s (%d bytes); clyde does not extend an existing file",
				w.Name, r.Offset, r.Size, t.Given, t.Size)
		}
	}
	if len(w.fileRegs) == 1 && (w.TimeBased || w.fileBudget >= w.fileRegs[0].Size || w.Diskless()) {
		r := w.fileRegs[0]
		if w.Diskless() {
			r.Size = w.fileBudget
			w.target.Size = max(w.target.Size, r.Offset+r.Size)
		}
		w.fileRegs, w.vol = nil, nil
		return region{offset: r.Offset, size: r.Size}, nil
	}
	if err := w.filesUnsupported(); err != nil {
		return region{}, err
	}
	if w.Files.Service.NonUniform() {
		for i, r := range w.fileRegs {
			if r.Size < w.BS {
				// fio would reset and pick it again for ever.
				return region{}, result.Usagef("--file_service_type", "job %s: %s holds no whole block of %d bytes, and a %s service never leaves a file done",
					w.Name, w.Files.Names[i], w.BS, w.Files.Service.Dist.Kind)
			}
		}
	}
	return region{offset: w.fileRegs[0].Offset, size: w.fileBudget}, nil
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

// fileCount is what a worker issued to one file.
type fileCount struct{ ios, bytes [2]int64 }

// filesPattern is fio's rw modes over a file set: each I/O's file,
// direction and offset come from the worker's fileset.Walk; the pattern
// counts what each file was issued and ends passes and the job. A pass
// ends when every file is done, or for an engine that queues once its
// I/Os add up to the job's size (do_io's bytes_issued); loops= runs that
// many passes, every file reset and reopened for each, until the job's
// I/Os add up to its size times loops (io_issue_bytes_exceeded); with
// io_size=, that times loops, in as many passes as it takes
// (keep_running). A time-based job starts a new pass until its runtime
// is over. The pattern draws one I/O ahead, so the last is known
// (worker.remaining).
type filesPattern struct {
	walk   *fileset.Walk
	dir    func() int
	counts []fileCount
	bs     int64
	passes
	// The I/O drawn ahead; have says it is there.
	have bool
	io   fileset.IO
}

func newFilesPattern(w *worker) *filesPattern {
	spec := w.spec
	p := &filesPattern{dir: w.pickDir, counts: make([]fileCount, len(spec.fileRegs)), bs: spec.BS}
	p.passes = newPasses(spec, spec.fileBudget)
	p.walk = fileset.New(fileset.Options{
		Regions: spec.fileRegs, BS: spec.BS, Service: spec.Files.Service, Open: spec.Files.Open,
		Random: spec.RW.Random(), RandomMap: spec.RandomMap, Dist: spec.Distribution, TimeBased: spec.TimeBased,
		DropOnOpen: spec.Invalidate && !spec.Direct && osio.CanAdviseAccess && !spec.Diskless(),
		RNG:        w.rng, Pick: newRand(spec.Seed^0xf11e, w.index+1),
		ServiceRNG: newRand(spec.Seed^0xf11ed157, w.index+1), DistRNG: newRand(spec.Seed^0xd157, w.index+1),
	})
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
	if !p.have && !p.pull() {
		// Asked past the job's last I/O (a ramp that ended the job): a
		// pass of its own.
		p.restart()
		p.newPass()
		if !p.pull() {
			w.remaining = min(w.remaining, 1)
			w.lun = 0
			return w.pickDir(), p.walk.Start(0), int(p.bs) // layFiles leaves the job a block
		}
	}
	io := p.io
	if io.Drop {
		w.dropMember(io.File)
	}
	w.lun = io.File
	c := &p.counts[io.File]
	c.ios[io.Dir]++
	c.bytes[io.Dir] += p.bs
	p.have = false
	if !p.pull() {
		w.remaining = min(w.remaining, 1) // this one is the last
	}
	return io.Dir, io.Offset, int(p.bs)
}

// pull draws the next I/O ahead; false when the job has none left.
func (p *filesPattern) pull() bool {
	if p.total > 0 && p.issued >= p.total {
		return false // io_issue_bytes_exceeded
	}
	for range 2 {
		if p.budget == 0 || p.passBytes < p.budget {
			if io, ok := p.walk.Place(p.dir); ok {
				p.io, p.have = io, true
				p.passBytes += p.bs
				p.issued += p.bs
				return true
			}
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
// no longer done (fileset.Walk.NewPass), no bytes issued in the pass.
func (p *filesPattern) newPass() {
	p.walk.NewPass()
	p.passBytes = 0
}

// dropMember drops the cached pages of member i before an I/O, as fio
// invalidates a file it reopens or whose random map starts over.
func (w *worker) dropMember(i int) {
	if err := dropCache(w.hs[i]); err != nil {
		w.fail(fmt.Errorf("invalidate %s: %w", w.spec.vol[i].Given, err))
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
			name := w.spec.vol[i].Given
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
