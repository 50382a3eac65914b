package fiojob

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio 3.33's options for a job of several files: filename=a:b:c,
// nrfiles, filename_format, filesize (a size or a range), file_service_type,
// openfiles and unique_filename. The job's files become a
// blockbench.FileSet, which places and serves them as fio does
// (blockbench/files.go); a job of one file without filesize stays a
// single target.

func addFileOptions() {
	handlers["filename"] = (*job).filename
	handlers["nrfiles"] = func(j *job, o Option) error { return j.intIn(o, 1, maxFiles, &j.nrFiles) }
	aliases["nr_files"] = "nrfiles"
	handlers["filesize"] = (*job).fileSizeOption
	handlers["file_service_type"] = (*job).fileServiceType
	handlers["openfiles"] = func(j *job, o Option) error { return j.intIn(o, 0, maxFiles, &j.openFiles) }
	// unique_filename prefixes a file's name with the client's address in
	// fio's client/server runs (init.c set_name_idx); clyde runs here,
	// where fio's prefix is empty.
	handlers["unique_filename"] = func(j *job, o Option) error { var b bool; return boolean(o, &b) }
}

// maxFiles bounds nrfiles and openfiles: every worker keeps a descriptor
// per file, which the process's limits are checked for before the run
// (blockbench's footprint).
const maxFiles = 1 << 20

// filename is fio's filename=: names separated by ':' ('\:' is a colon
// in a name), each added to the job's files after those a [global]
// section or an earlier filename= gave (options.c str_filename_cb, which
// also restarts nr_files at the first name).
func (j *job) filename(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	names := splitFilenames(o.Value)
	if len(names) == 0 {
		return result.Usagef(o.Pos, "filename=%s names no file; give a path, or several separated by ':'", o.Value)
	}
	if len(j.files) == 0 {
		j.nrFiles = 0
	}
	j.files = append(j.files, names...)
	j.nrFiles += len(names)
	return nil
}

// splitFilenames is fio 3.33's str_filename_cb: blanks cut from both ends
// of the value, then get_next_str's names up to an empty one: each ends
// at a ':' not escaped by a '\', which drops the '\'; a ':' at a name's
// start is skipped.
func splitFilenames(v string) []string {
	s := []byte(strings.Trim(v, " \t\r\n\f\v"))
	var out []string
	for len(s) > 0 {
		start, i := 0, 0
		var name []byte
		for {
			p := indexByteFrom(s, ':', i)
			if p < 0 {
				name, s = s[start:], nil
				break
			}
			if p == start {
				start++ // fio: a colon first is skipped
				i = start
				continue
			}
			if s[p-1] != '\\' {
				name, s = s[start:p], s[p+1:]
				break
			}
			s = append(s[:p-1], s[p:]...) // memmove drops the '\'
			i = p
		}
		if len(name) == 0 {
			break // fio stops at an empty name
		}
		out = append(out, string(name))
	}
	return out
}

func indexByteFrom(s []byte, c byte, from int) int {
	if from > len(s) {
		return -1
	}
	if k := strings.IndexByte(string(s[from:]), c); k >= 0 {
		return from + k
	}
	return -1
}

// fileKeywords are what fio's filename_format expands, in the order
// make_filename replaces them.
var fileKeywords = []string{"$jobname", "$jobnum", "$filenum", "$clientuid"}

// setFilenameFormat reads fio's filename_format: the names of a job's
// files when it gives no filename= (makeFilename).
func (j *job) setFilenameFormat(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	j.filenameFormat = o
	return nil
}

// makeFilename is fio 3.33's make_filename: the format with each keyword
// replaced, case-insensitively, first occurrence first and again until
// none is left, keyword by keyword: $jobname by the job's name, $jobnum
// by the clone's number, $filenum by the file's, $clientuid by the
// client's address in fio's client/server runs (empty here). An empty
// format is fio's default, JOB.N.F.
func makeFilename(format, jobname string, jobnum, filenum int) string {
	if format == "" {
		return jobname + "." + strconv.Itoa(jobnum) + "." + strconv.Itoa(filenum)
	}
	values := []string{jobname, strconv.Itoa(jobnum), strconv.Itoa(filenum), ""}
	buf := format
	for k, kw := range fileKeywords {
		for {
			at := indexFold(buf, kw)
			if at < 0 {
				break
			}
			next := buf[:at] + values[k] + buf[at+len(kw):]
			if len(next) > pathMax-1 {
				next = next[:pathMax-1] // fio: "truncated filename"
			}
			if next == buf {
				break // the expansion brings the keyword back: fio's loop never ends
			}
			buf = next
		}
	}
	return buf
}

// pathMax is fio's PATH_MAX, the size of make_filename's buffer.
const pathMax = 4096

// indexFold is strcasestr: the first place s holds sub, ASCII case
// ignored.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// fileFor is file f of clone i of a job without filename=, in directory=.
func (j *job) fileFor(i, f int) string {
	name := makeFilename(j.filenameFormat.Value, j.sec.Name, i, f)
	if j.directory != "" && !filepath.IsAbs(name) {
		name = joinDirectory(j.directory, name)
	}
	return name
}

// fileSizeOption is fio's filesize: a size, or a range LOW-HIGH (also
// LOW:HIGH, LOW,HIGH) each file's size is drawn from; at least 1.
func (j *job) fileSizeOption(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	low, high, err := parseFileSize(o.Value, j.kb)
	if err != nil {
		return sizeError(o, err)
	}
	switch {
	case low < 1:
		return result.Usagef(o.Pos, "filesize=%s: a file is 1 byte or more", o.Value)
	case high < low:
		// fio lays out files of up to 16 EiB for it (high-low unsigned).
		return result.Usagef(o.Pos, "filesize=%s: the range ends before it starts; give LOW-HIGH", o.Value)
	}
	j.fileSize = blockbench.FileSize{Low: low, High: high}
	return nil
}

// parseFileSize is handle_option's reading of an option with a low and a
// high value (FIO_OPT_STR_VAL with off2): the value cut into parts at
// each ',', or else ':', or else '-' (splitFioValue); the first part is
// the low end, the last the high end, a single value both. fio's unit
// ends at the separator (__get_mult_bytes), as each part's does here.
func parseFileSize(v string, kb KBBase) (low, high int64, err error) {
	v = strings.TrimSpace(v)
	parts := splitFioValue(v)
	first := v // __handle_option cuts only at a ','; the unit ends at any separator
	if i := strings.IndexAny(v, ",:-"); i > 0 {
		first = v[:i]
	}
	if low, err = ParseSize(first, kb); err != nil {
		return 0, 0, err
	}
	high = low
	if len(parts) > 1 {
		if high, err = ParseSize(parts[len(parts)-1], kb); err != nil {
			return 0, 0, err
		}
	}
	return low, high, nil
}

// fileServiceType is fio's file_service_type: random, roundrobin or
// sequential, each with an optional ":N" (I/Os per pick, atoi's reading:
// 0 for no number, which fio's unsigned count makes 1<<32), or zipf,
// pareto, normal (gauss) with an optional ":VALUE[:CENTER]" (options.c
// str_fst_cb). The name is matched up to its first ',' or ':' (parse.c
// opt_len).
func (j *job) fileServiceType(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	s, err := parseFileService(o.Value)
	if err != nil {
		return result.Usagef(o.Pos, "file_service_type=%s: %v", o.Value, err)
	}
	j.service = s
	return nil
}

// errService is a file_service_type fio refuses.
type errService string

func (e errService) Error() string { return string(e) }

func parseFileService(v string) (blockbench.FileService, error) {
	var s blockbench.FileService
	name, post := v, ""
	if i := strings.IndexAny(v, ",:"); i >= 0 {
		if c := strings.IndexByte(v, ','); c >= 0 {
			i = c // opt_len looks for a ',' first
		}
		name = v[:i]
	}
	if i := strings.IndexByte(v, ':'); i >= 0 {
		post = strings.Trim(v[i+1:], " \t") // get_opt_postfix
	}
	hasPost := strings.Contains(v, ":")
	switch name {
	case "random", "roundrobin", "sequential":
		s.Kind = blockbench.ServiceKind(name)
		s.Run = 1
		if hasPost {
			s.Run = int64(uint32(atoi(post)))
			if s.Run == 0 {
				s.Run = 1 << 32 // file_service_left = 0 - 1
			}
		}
		return s, nil
	case "zipf":
		s.Dist = blockbench.Distribution{Kind: blockbench.DistZipf, Param: blockbench.DefaultZipfTheta}
	case "pareto":
		s.Dist = blockbench.Distribution{Kind: blockbench.DistPareto, Param: blockbench.DefaultParetoH}
	case "normal", "gauss":
		s.Dist = blockbench.Distribution{Kind: blockbench.DistNormal}
	default:
		return s, errService("give random, roundrobin or sequential (with :N, I/Os per file), or zipf, pareto or normal (with :VALUE[:CENTER])")
	}
	s.Kind = blockbench.ServiceRandom
	if hasPost {
		// split_parse_distr: VALUE[:CENTER].
		val, center, hasCenter := strings.Cut(post, ":")
		f, ok := parseFloat(val)
		if !ok {
			return s, errService("file service type random postfix parsing failed")
		}
		s.Dist.Param = f
		if hasCenter {
			c, ok := parseFloat(center)
			if !ok {
				return s, errService("file service type random postfix parsing failed")
			}
			s.Dist.Center, s.Dist.HasCenter = c, true
		}
	}
	d := s.Dist
	switch {
	case d.HasCenter && (d.Center < 0 || d.Center > 1):
		return s, errService("distribution center out of range (0 <= center <= 1.0)")
	case d.Kind == blockbench.DistZipf && d.Param == 1:
		return s, errService("zipf theta must be different than 1.0")
	case d.Kind == blockbench.DistPareto && (d.Param <= 0 || d.Param >= 1):
		return s, errService("pareto input out of range (0 < input < 1.0)")
	case d.Kind == blockbench.DistNormal && (d.Param < 0 || d.Param >= 100):
		return s, errService("normal deviation out of range (0 <= input < 100.0)")
	}
	return s, nil
}

// atoi is C's atoi: blanks, a sign, digits up to the first other byte; 0
// for none.
func atoi(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1<<40; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// finishFiles decides the job's files, as fio's add_job does (init.c):
// filename='s names, in directory=, or with none nrfiles names by
// filename_format; a job of several files, or of one with filesize, is
// a file set, each clone's files its own unless filename= names them.
func (j *job) finishFiles(w *blockbench.Workload) error {
	if len(j.files) > 0 && j.nrFiles < len(j.files) {
		// fio lays out every file and does I/O on the first nrfiles.
		return result.Usagef(j.set["nrfiles"].Pos, "job %s: nrfiles=%d is fewer than the %d files filename= names; give as many, or name fewer", j.sec.Name, j.nrFiles, len(j.files))
	}
	var names []string
	switch {
	case w.Diskless():
		// fio's null opens no file, named or not (FIO_DISKLESSIO).
		if j.fileSize.Low == 0 {
			return nil
		}
		names = []string{j.fileFor(0, 0)}
	case len(j.files) == 0:
		// fio names each clone's files by filename_format, by default
		// SECTION.CLONE.FILE, in directory= (or here).
		j.ownFiles = true
		for f := range j.nrFiles {
			names = append(names, j.fileFor(0, f))
		}
		if makeFilename(j.filenameFormat.Value, j.sec.Name, 0, 0) == "" {
			return result.Usagef(j.filenameFormat.Pos, "job %s: filename_format=%s names no file ($clientuid is empty outside fio's client/server runs)", j.sec.Name, j.filenameFormat.Value)
		}
	default:
		for _, n := range j.files {
			if j.directory != "" && !filepath.IsAbs(n) {
				n = joinDirectory(j.directory, n)
			}
			names = append(names, n)
		}
	}
	if len(names) == 1 && j.fileSize.Low == 0 {
		w.Filename = names[0]
		return nil
	}
	w.Filename = ""
	w.Files = &blockbench.FileSet{Names: names, Size: j.fileSize, Service: j.service, Open: j.openFiles}
	return nil
}

// cloneFiles gives clone i (of n, fio's thread number thread) its own
// file set: its own files when the job names none (fio's JOB.N.F with N
// the clone's subjob number), and its draws of a filesize range.
func (j *job) cloneFiles(w *blockbench.Workload, i, n, thread int) {
	if w.Files == nil {
		if j.ownFiles && n > 1 {
			w.Filename = j.fileFor(subjob(i, n), 0)
		}
		return
	}
	fs := *w.Files
	fs.Names = append([]string(nil), fs.Names...)
	if j.ownFiles && n > 1 {
		for f := range fs.Names {
			fs.Names[f] = j.fileFor(subjob(i, n), f)
		}
	}
	if fs.Size.High > fs.Size.Low {
		bs := w.BS // fio's rw_min_bs: the smaller of reads' and writes' smallest
		if w.Sizes != nil {
			bs = min(w.Sizes.Dirs[blockbench.SizeRead].Min, w.Sizes.Dirs[blockbench.SizeWrite].Min)
		}
		fs.Size.Draws = j.fileSizeDraws(len(fs.Names), thread+i, bs)
	}
	w.Files = &fs
}

// fioRandFileSize is FIO_RAND_FILE_SIZE_OFF, the index of filesize's
// seed among a job's (fio.h).
const fioRandFileSize = 7

// fileSizeDraws are the first n sizes fio 3.33 draws for a filesize
// range in the job numbered thread: get_rand_file_size, low plus the
// range times a draw of the job's file_size_state over its largest value
// plus one, cut to a multiple of the smallest block size (rw_min_bs).
// With randrepeat=0 and no randseed fio's seeds are random: clyde's own.
func (j *job) fileSizeDraws(n, thread int, bs int64) []int64 {
	seed, seeded := j.fioSeed(thread, fioRandFileSize)
	if !seeded {
		return nil // blockbench draws its own from the workload's seed
	}
	r := newFioRand(seed, j.taus64)
	span := float64(j.fileSize.High - j.fileSize.Low)
	scale := float64(1 << 32)
	if j.taus64 {
		scale *= float64(1 << 32)
	}
	out := make([]int64, n)
	for i := range out {
		v := j.fileSize.Low + int64(span*(float64(r.next())/scale))
		out[i] = v - v%bs
	}
	return out
}

// fioSeed is the seed of index for the job numbered thread, as fio's
// setup_random_seeds derives it: from randseed when given or when
// randrepeat is on (fio's default, randseed 0x89); false when fio's
// seeds are random (randrepeat=0 without randseed).
func (j *job) fioSeed(thread, index int) (uint64, bool) {
	randseed := uint64(fioRandSeed)
	if _, ok := j.set["randseed"]; ok {
		randseed = j.w.Seed
	} else if o, ok := j.set["randrepeat"]; ok && o.Value == "0" {
		return 0, false
	}
	return fioSeed(randseed, thread, index), true
}
