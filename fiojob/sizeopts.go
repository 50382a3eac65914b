package fiojob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio's block-size options: bs= (blocksize=) and ba= (blockalign=) with a
// value per direction, bsrange= (blocksize_range=), bssplit=,
// bs_unaligned (blocksize_unaligned) and bs_is_seq_rand. They are kept as
// fio keeps them while it reads a job (thread_options' bs, min_bs, max_bs,
// bssplit and ba, per direction: read, write, trim) and resolved when the
// job is complete, as fio's fixup_options: a direction's smallest and
// largest size are bsrange's or bssplit's, whichever came last, else its
// bs=; blockalign is the direction's smallest size unless given.
// blockbench runs them (BlockSizes).

// jobSizes are a job's block-size options as read so far; a 0 in min or
// max is fio's "not set" (bs= then).
type jobSizes struct {
	bs, min, max, ba   [3]int64
	split              [3][]blockbench.SizeShare
	unaligned, seqRand bool
}

func addSizeOptions() {
	handlers["bs"] = func(j *job, o Option) error { return j.perDirection(o, &j.sizes.bs) }
	handlers["ba"] = func(j *job, o Option) error { return j.perDirection(o, &j.sizes.ba) }
	handlers["bsrange"] = (*job).bsrange
	handlers["bssplit"] = (*job).bssplit
	handlers["bs_unaligned"] = func(j *job, o Option) error { return boolean(o, &j.sizes.unaligned) }
	handlers["bs_is_seq_rand"] = func(j *job, o Option) error { return boolean(o, &j.sizes.seqRand) }
}

// directionParts splits a value with one part per direction as fio's
// handle_option does: a part ends at the first ',' or, for an option of
// one size per direction (sizes), where there is none, at the first ':'
// or else '-'. A ',' that ends the value ends its part, and an empty part
// follows (so that part fills no direction after it: fio's bs=8k, reads
// 8k and leaves writes at 4k).
func directionParts(v string, sizes bool) []string {
	var parts []string
	for {
		i := strings.IndexByte(v, ',')
		if i >= 0 && i == len(v)-1 {
			return append(parts, v[:i], "")
		}
		if i < 0 && sizes {
			if i = strings.IndexByte(v, ':'); i < 0 {
				i = strings.IndexByte(v, '-')
			}
		}
		if i < 0 {
			return append(parts, v)
		}
		parts = append(parts, v[:i])
		v = v[i+1:]
	}
}

// storeDirections is where fio's handle_option stores the parts of such a
// value: the first part in reads, the second in writes, the third in
// trims, and the last part in every direction after it (bs=4k,8k: trims
// of 8k); a part left empty leaves its direction as it was (bs=,8k keeps
// reads at 4k), and a part past the third is ignored, as fio's. set
// stores one value in one direction.
func storeDirections[T any](vals []T, ok []bool, set func(dir int, v T)) {
	last := len(vals) - 1
	for curr, v := range vals {
		if !ok[curr] {
			continue
		}
		if curr < 3 {
			set(curr, v)
		}
		if curr == last {
			for d := curr + 1; d < 3; d++ {
				set(d, v)
			}
		}
	}
}

// perDirection reads bs= or ba=: a size per direction.
func (j *job) perDirection(o Option, dst *[3]int64) error {
	if err := needValue(o); err != nil {
		return err
	}
	parts := directionParts(o.Value, true)
	vals, ok := make([]int64, len(parts)), make([]bool, len(parts))
	given := false
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue // fio: an empty part keeps its direction's value
		}
		v, err := ParseSize(p, j.kb)
		if err != nil {
			return sizeError(Option{Name: o.Name, Value: p, Pos: o.Pos}, err)
		}
		if v < 1 {
			return result.Usagef(o.Pos, "%s=%s: a size is 1 byte or more", o.Name, o.Value)
		}
		vals[i], ok[i], given = v, true, true
	}
	if !given {
		return result.Usagef(o.Pos, "%s=%s: give a size, or one per direction (READ,WRITE,TRIM; 4k,8k or ,8k)", o.Name, o.Value)
	}
	storeDirections(vals, ok, func(d int, v int64) { dst[d] = v })
	return nil
}

// bsrange reads bsrange=: LOW-HIGH (or LOW:HIGH) per direction, the two
// swapped when LOW is the larger, as fio's FIO_OPT_RANGE.
func (j *job) bsrange(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	parts := directionParts(o.Value, false)
	vals, ok := make([][2]int64, len(parts)), make([]bool, len(parts))
	given := false
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		lo, hi, found := strings.Cut(p, "-")
		if !found {
			lo, hi, found = strings.Cut(p, ":")
		}
		a, errA := ParseSize(lo, j.kb)
		b, errB := ParseSize(hi, j.kb)
		if !found || errA != nil || errB != nil || a < 1 || b < 1 {
			return result.Usagef(o.Pos, "%s=%s: give LOW-HIGH sizes (1k-4k), or one range per direction (READ,WRITE,TRIM)", o.Name, o.Value)
		}
		vals[i], ok[i], given = [2]int64{min(a, b), max(a, b)}, true, true
	}
	if !given {
		return result.Usagef(o.Pos, "%s=%s: give LOW-HIGH sizes (1k-4k), or one range per direction (READ,WRITE,TRIM)", o.Name, o.Value)
	}
	storeDirections(vals, ok, func(d int, v [2]int64) { j.sizes.min[d], j.sizes.max[d] = v[0], v[1] })
	return nil
}

// bssplit reads bssplit=: SIZE/PERCENT entries separated by ':', one list
// for every direction or READ,WRITE[,TRIM] (fio's str_split_parse: with
// two lists trims take the writes'); a list left empty keeps its
// direction's sizes. A direction's smallest and largest size become its
// list's.
func (j *job) bssplit(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	lists, err := ParseBSSplit(strings.TrimSpace(o.Value), j.kb)
	if err != nil {
		return result.Usagef(o.Pos, "%s=%s: %v", o.Name, o.Value, err)
	}
	for d, l := range lists {
		if len(l) == 0 {
			continue
		}
		if err := blockbench.SplitError(d, l); err != nil {
			return result.Usagef(o.Pos, "%s=%s: %v", o.Name, o.Value, err)
		}
		lo, hi := l[0].Size, l[0].Size
		for _, e := range l {
			lo, hi = min(lo, e.Size), max(hi, e.Size)
		}
		j.sizes.split[d], j.sizes.min[d], j.sizes.max[d] = l, lo, hi
	}
	return nil
}

// ParseBSSplit reads a bssplit value as fio's str_split_parse and
// split_parse_ddir do: the lists of reads, writes and trims (one list for
// all three without a ','; with two, trims take the second), each
// SIZE/PERCENT entries separated by ':' and read up to the first empty
// one, at most blockbench.MaxSplit of them. PERCENT is C's atoi of what
// follows the '/': above 100 is 100, 0 (or nothing, or no '/') is
// blockbench.NoPct. A list may be empty.
func ParseBSSplit(v string, kb KBBase) ([3][]blockbench.SizeShare, error) {
	var text [3]string
	read, rest, found := strings.Cut(v, ",")
	switch {
	case !found:
		text = [3]string{v, v, v}
	default:
		write, trim, three := strings.Cut(rest, ",")
		if !three {
			trim = write
		}
		text = [3]string{read, write, trim}
	}
	var out [3][]blockbench.SizeShare
	for d, t := range text {
		l, err := parseSplitList(t, kb)
		if err != nil {
			return out, err
		}
		out[d] = l
	}
	return out, nil
}

func parseSplitList(t string, kb KBBase) ([]blockbench.SizeShare, error) {
	var out []blockbench.SizeShare
	for _, entry := range strings.Split(t, ":") {
		if entry == "" {
			break // fio stops at an empty entry
		}
		size, pct, hasPct := strings.Cut(entry, "/")
		n, err := ParseSize(size, kb)
		if err != nil {
			return nil, fmt.Errorf("%q is not a size (fio: split conversion failed)", size)
		}
		if n < 1 {
			return nil, fmt.Errorf("a block size of %s: give 1 byte or more", size)
		}
		p := blockbench.NoPct
		if hasPct {
			switch a := cAtoi(pct); {
			case a < 0 || a > 100:
				p = 100 // fio's unsigned compare: a negative share is above 100
			case a > 0:
				p = int(a)
			}
		}
		out = append(out, blockbench.SizeShare{Size: n, Pct: p})
		if len(out) == blockbench.MaxSplit {
			break // fio: hit max of 64 split entries
		}
	}
	return out, nil
}

// cAtoi is C's atoi: blanks, a sign, the digits that follow; 0 when none.
// A number past what an int holds is taken as past 100.
func cAtoi(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = min(n*10+int64(s[i]-'0'), 1<<40)
	}
	if neg {
		return -n
	}
	return n
}

// finishSizes is fio's fixup_options for the sizes: each direction's
// smallest and largest size bsrange's or bssplit's, or its bs=; then the
// workload runs them (BlockSizes.Apply: one size, or sizes drawn per I/O).
func (j *job) finishSizes(w *blockbench.Workload) error {
	s := &j.sizes
	var bs blockbench.BlockSizes
	for d := range 3 {
		ds := &bs.Dirs[d]
		ds.Min, ds.Max, ds.Split, ds.Align = s.min[d], s.max[d], s.split[d], s.ba[d]
		if ds.Min == 0 {
			ds.Min = s.bs[d]
		}
		if ds.Max == 0 {
			ds.Max = s.bs[d]
		}
	}
	bs.Unaligned, bs.SeqRand = s.unaligned, s.seqRand
	bs.Apply(w)
	if w.Sizes != nil && j.lfsr && w.RW.Random() {
		return result.Usagef(j.set["random_generator"].Pos, "job %s: random_generator=lfsr with block sizes that vary: fio's lfsr visits each smallest block once and lets a larger I/O overlap the next, where clyde's random map cuts it; give tausworthe (the random map) or one block size", j.sec.Name)
	}
	return nil
}

// sizeNotes say what fio says of the job's sizes: blockalign turns its
// random map off.
func (j *job) sizeNotes(w blockbench.Workload) []string {
	if w.Sizes == nil || !w.RW.Random() || !w.RandomMap || !w.Distribution.Uniform() {
		return nil
	}
	for _, ds := range w.Sizes.Dirs {
		if ds.Align != 0 && ds.Align != ds.Min {
			return []string{"job " + j.sec.Name + ": blockalign= other than a direction's smallest block size turns the random map off, as fio's (fio: Any use of blockalign= turns off randommap)"}
		}
	}
	return nil
}

// sizesEcho is what ran in fio's options, for a job not written in fio's
// language (resolvedOptions): bs= per direction, and bsrange, bssplit,
// ba, bs_unaligned and bs_is_seq_rand where they apply.
func sizesEcho(s *blockbench.BlockSizes, set func(k, v string)) {
	var bs, rng, split, ba [3]string
	varies, splits, aligned := false, false, false
	for d, ds := range s.Dirs {
		bs[d] = sizeString(ds.Min)
		rng[d] = sizeString(ds.Min) + "-" + sizeString(ds.Max)
		varies = varies || ds.Min != ds.Max
		var es []string
		for _, e := range ds.Split {
			t := sizeString(e.Size) + "/"
			if e.Pct != blockbench.NoPct {
				t += strconv.Itoa(e.Pct)
			}
			es = append(es, t)
		}
		split[d] = strings.Join(es, ":")
		splits = splits || len(es) > 0
		ba[d] = sizeString(ds.Align)
		if ds.Align == 0 {
			ba[d] = bs[d]
		}
		aligned = aligned || ds.Align != 0
	}
	set("bs", strings.Join(bs[:], ","))
	if varies {
		set("bsrange", strings.Join(rng[:], ","))
	}
	if splits {
		set("bssplit", strings.Join(split[:], ","))
	}
	if aligned {
		set("ba", strings.Join(ba[:], ","))
	}
	if s.Unaligned {
		set("bs_unaligned", "1")
	}
	if s.SeqRand {
		set("bs_is_seq_rand", "1")
	}
}
