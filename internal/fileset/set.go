// Package fileset is fio 3.33's several files of one job (nrfiles and
// filename=a:b:c, filesize, file_service_type, openfiles) as plain values
// with no I/O: the set and its rules, how its files are laid out
// (filesetup.c setup_files), and a worker's walk through them, one I/O at
// a time (io_u.c __get_next_file, set_io_u_file, get_next_offset). It
// opens nothing: blockbench resolves, admits, creates and opens the files
// through its targets, and counts, ends passes and drops caches where
// the walk says to.
package fileset

import (
	"fmt"

	"github.com/clydebench/clyde/internal/offsets"
)

// Set is fio's files of one job, in fio's order: filename=a:b:c, or
// nrfiles names by filename_format.
type Set struct {
	Names []string
	// Size is fio's filesize; zero splits the workload's size over the
	// files as fio does (size/nrfiles each, the first files a block more
	// while what the division leaves lasts).
	Size Size
	// Service picks the file of each I/O (fio's file_service_type).
	Service Service
	// Open is fio's openfiles: at most this many files in use at once, a
	// file joining them when the service picks it and leaving once it
	// is done; 0 is every file.
	Open int
}

// Size is fio's filesize: every file Low bytes, or with High above
// Low a size drawn for each from Low up to High, cut to a whole block
// (filesetup.c get_rand_file_size). An existing file whose size is
// within Low..High keeps it (setup_files).
type Size struct {
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
	// RoundRobin takes the files in turn.
	RoundRobin ServiceKind = "roundrobin"
	// Sequential keeps to one file until it is done.
	Sequential ServiceKind = "sequential"
	// Random draws a file, uniformly or by Service.Dist.
	Random ServiceKind = "random"
)

// Service is how each I/O's file is picked.
type Service struct {
	// Kind is the service; "" is round robin.
	Kind ServiceKind
	// Run is how many I/Os in a row go to a picked file before the next
	// pick (fio's ":N", file_service_nr); 0 is 1. fio counts it in an
	// unsigned int, so its own 0 is 1<<32.
	Run int64
	// Dist, with Random, draws the files by fio's zipf, pareto or
	// normal (gauss) with its parameter and center; the zero value is
	// uniform. A non-uniform service never marks a file done: one that
	// can place no I/O starts over (io_u.c set_io_u_file).
	Dist offsets.Distribution
}

// NonUniform says files are drawn by a distribution (fio's
// __FIO_FSERVICE_NONUNIFORM).
func (s Service) NonUniform() bool { return s.Kind == Random && !s.Dist.Uniform() }

// fsShift is fio's FIO_FSERVICE_SHIFT: a non-uniform service draws one
// of nrfiles<<10 ranges and takes the file by shifting back.
const fsShift = 10

// NamesProblem is what is wrong with the set's names (one without a
// name, one given twice, none at all), or "".
func (s Set) NamesProblem() string {
	seen := map[string]bool{}
	for _, n := range s.Names {
		switch {
		case n == "":
			return "a file of its file set has no name"
		case seen[n]:
			return fmt.Sprintf("%s is listed twice; give each file once", n)
		}
		seen[n] = true
	}
	if len(s.Names) == 0 {
		return "a file set needs at least one file"
	}
	return ""
}

// Problem is what is wrong with the set's openfiles, filesize and
// service, and the flag it concerns, or "". The service's distribution's
// own ranges are its Problem (offsets.Distribution).
func (s Set) Problem() (flag, msg string) {
	v := s.Service
	switch {
	case s.Open < 0:
		return "--openfiles", fmt.Sprintf("%d is negative; give the files open at once, 0 for all", s.Open)
	case s.Size.Low < 0 || s.Size.High < s.Size.Low || s.Size.Low == 0 && s.Size.High != 0:
		// fio lays out a file of up to 16 EiB for a range that ends
		// before it starts (its unsigned high-low).
		return "--filesize", fmt.Sprintf("%d-%d is not a size or a range from low to high", s.Size.Low, s.Size.High)
	case v.Run < 0:
		return "--file_service_type", fmt.Sprintf("%d I/Os per file is negative", v.Run)
	case v.Kind != "" && v.Kind != RoundRobin && v.Kind != Sequential && v.Kind != Random:
		return "--file_service_type", fmt.Sprintf("unknown service %q; give random, roundrobin, sequential, zipf, pareto or normal", v.Kind)
	case !v.Dist.Uniform() && (v.Kind != Random || v.Dist.Kind == offsets.Zoned || v.Dist.Kind == offsets.ZonedAbs):
		return "--file_service_type", "a distribution of files is zipf, pareto or normal (gauss)"
	}
	return "", ""
}
