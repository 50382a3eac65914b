package fiojob

import (
	"bufio"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Comparing the I/O sizes of two runs of a job whose sizes are drawn per
// I/O (bssplit, bsrange, per-direction bs=): no two runs issue the same
// I/Os, so what is compared is what fio promises of them, from the
// per-I/O latency log (log_offset=1) of each: the share of each size per
// direction, within what the draws vary by; the I/O count likewise; every
// offset on its direction's grid; and, where fio covers the region once
// per pass, that both do.

// loggedIO is one line of a latency log: direction, size, offset.
type loggedIO struct {
	dir       int
	size, off int64
}

// readLogIOs reads a latency log written with log_offset=1.
func readLogIOs(path string) ([]loggedIO, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []loggedIO
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ",")
		if len(fields) < 5 {
			return nil, fmt.Errorf("%s: %q has no offset field", path, sc.Text())
		}
		var v [3]int64
		for i, k := range []int{2, 3, 4} {
			if v[i], err = strconv.ParseInt(strings.TrimSpace(fields[k]), 10, 64); err != nil {
				return nil, fmt.Errorf("%s: %q: %v", path, sc.Text(), err)
			}
		}
		out = append(out, loggedIO{dir: int(v[0]), size: v[1], off: v[2]})
	}
	return out, sc.Err()
}

// sizeCase is what a TestAgainstFio case with drawn sizes checks beyond
// the shares and the count.
type sizeCase struct {
	// align is the grid of each direction's offsets (read, write, trim):
	// each a multiple of it; 0 checks nothing.
	align [3]int64
	// cover, when set, is the region each pass covers once: no byte
	// twice in a pass, none left out (loops passes).
	cover int64
	loops int
	// short, when set, is the region's bytes that both runs end short of
	// (fio's map with a direction of larger blocks: TestSizedMapQuirk).
	short int64
	// unaligned says sizes off a 512-byte multiple are expected (at
	// least one in each run).
	unaligned bool
	// countFree leaves the I/O count out (a run that ends at a draw).
	countFree bool
}

// sharePoints is how many standard errors a share, or a count, may be
// apart: about one case in 10^5 fails by chance.
const sharePoints = 4.5

// compare lists the differences between fio's log and clyde's; each
// expectation of the case is checked against fio's too, so a wrong one
// fails rather than passes.
func (sc *sizeCase) compare(fio, clyde view) []string {
	var diffs []string
	if len(fio.ios) == 0 || len(clyde.ios) == 0 {
		return []string{fmt.Sprintf("sizes: fio logged %d I/Os, clyde %d", len(fio.ios), len(clyde.ios))}
	}
	fs, cs := shareOf(fio.ios), shareOf(clyde.ios)
	for d := range 3 {
		sizes := map[int64]bool{}
		for s := range fs.count[d] {
			sizes[s] = true
		}
		for s := range cs.count[d] {
			sizes[s] = true
		}
		nf, nc := float64(fs.n[d]), float64(cs.n[d])
		if nf == 0 || nc == 0 {
			if nf+nc > 0 {
				diffs = append(diffs, fmt.Sprintf("sizes: direction %d: fio %d I/Os, clyde %d", d, fs.n[d], cs.n[d]))
			}
			continue
		}
		for _, s := range slices.Sorted(maps.Keys(sizes)) {
			pf, pc := float64(fs.count[d][s])/nf, float64(cs.count[d][s])/nc
			p := (pf*nf + pc*nc) / (nf + nc)
			if se := math.Sqrt(p * (1 - p) * (1/nf + 1/nc)); math.Abs(pf-pc) > sharePoints*se+0.003 {
				diffs = append(diffs, fmt.Sprintf("size shares: direction %d, %d bytes: fio %.1f%% of %d I/Os, clyde %.1f%% of %d (all: fio %s; clyde %s)",
					d, s, 100*pf, fs.n[d], 100*pc, cs.n[d], fs.text(d), cs.text(d)))
				break
			}
		}
	}
	if nf, nc := float64(len(fio.ios)), float64(len(clyde.ios)); !sc.countFree && math.Abs(nf-nc) > sharePoints*math.Sqrt(nf)*fs.cv()+2 {
		diffs = append(diffs, fmt.Sprintf("I/O count: fio %d, clyde %d (sizes' cv %.2f)", len(fio.ios), len(clyde.ios), fs.cv()))
	}
	for _, run := range []struct {
		name string
		ios  []loggedIO
	}{{"fio", fio.ios}, {"clyde", clyde.ios}} {
		diffs = append(diffs, sc.check(run.name, run.ios)...)
	}
	return diffs
}

// check is the case's expectations of one run.
func (sc *sizeCase) check(name string, ios []loggedIO) []string {
	var diffs []string
	odd, bytes := 0, int64(0)
	for _, io := range ios {
		if a := sc.align[io.dir]; a > 0 && io.off%a != 0 {
			diffs = append(diffs, fmt.Sprintf("alignment: %s's direction %d I/O of %d at %d, off its %d grid", name, io.dir, io.size, io.off, a))
			break
		}
		if io.size%512 != 0 {
			odd++
		}
		bytes += io.size
	}
	if sc.unaligned && odd == 0 {
		diffs = append(diffs, fmt.Sprintf("unaligned: every size of %s a multiple of 512", name))
	}
	if sc.cover > 0 {
		loops := max(1, sc.loops)
		if bytes != sc.cover*int64(loops) {
			diffs = append(diffs, fmt.Sprintf("cover: %s moved %d bytes, want %d passes of %d", name, bytes, loops, sc.cover))
		}
		if loops == 1 {
			if twice, never := coverOnce(ios, sc.cover); twice+never > 0 {
				diffs = append(diffs, fmt.Sprintf("cover: %s did %d bytes twice, %d never", name, twice, never))
			}
		}
	}
	if sc.short > 0 && bytes >= sc.short {
		diffs = append(diffs, fmt.Sprintf("short: %s moved %d bytes, want fewer than the region's %d", name, bytes, sc.short))
	}
	return diffs
}

// coverOnce is how many bytes of [0, size) the I/Os cover twice and how
// many they leave out.
func coverOnce(ios []loggedIO, size int64) (twice, never int64) {
	s := slices.Clone(ios)
	sort.Slice(s, func(i, j int) bool { return s[i].off < s[j].off })
	var end int64
	for _, io := range s {
		if io.off < end {
			twice += min(end, io.off+io.size) - io.off
		} else {
			never += io.off - end
		}
		end = max(end, io.off+io.size)
	}
	return twice, never + max(0, size-end)
}

// sizeShares are a log's I/O counts per direction and size.
type sizeShares struct {
	count   [3]map[int64]int
	n       [3]int
	sum, sq float64
	max     int64
}

func shareOf(ios []loggedIO) sizeShares {
	var s sizeShares
	for d := range s.count {
		s.count[d] = map[int64]int{}
	}
	for _, io := range ios {
		if io.dir < 0 || io.dir > 2 {
			continue
		}
		s.count[io.dir][io.size]++
		s.n[io.dir]++
		s.sum += float64(io.size)
		s.sq += float64(io.size) * float64(io.size)
		s.max = max(s.max, io.size)
	}
	return s
}

// meanVar are direction d's mean size and the sizes' variance.
func (s sizeShares) meanVar(d int) (mean, variance float64) {
	if s.n[d] == 0 {
		return 0, 0
	}
	var sum, sq float64
	for size, k := range s.count[d] {
		sum += float64(size) * float64(k)
		sq += float64(size) * float64(size) * float64(k)
	}
	n := float64(s.n[d])
	mean = sum / n
	return mean, max(0, sq/n-mean*mean)
}

// cv is the sizes' coefficient of variation: how much the I/O count of a
// given number of bytes varies, per I/O.
func (s sizeShares) cv() float64 {
	n := float64(s.n[0] + s.n[1] + s.n[2])
	mean := s.sum / n
	return math.Sqrt(max(0, s.sq/n-mean*mean)) / mean
}

// text is a direction's shares, the largest first, at most eight.
func (s sizeShares) text(d int) string {
	type kv struct {
		size int64
		n    int
	}
	var all []kv
	for k, v := range s.count[d] {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || all[i].n == all[j].n && all[i].size < all[j].size })
	var out []string
	for _, e := range all[:min(8, len(all))] {
		out = append(out, fmt.Sprintf("%d:%.1f%%", e.size, 100*float64(e.n)/float64(s.n[d])))
	}
	return strings.Join(out, " ")
}
