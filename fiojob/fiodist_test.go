package fiojob

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The distributions against fio: the same job file through fio and clyde,
// with log_offset, compared as the comparison suite compares (entries,
// names, bytes), and by the shape of the offsets, which no seed makes
// equal (fio's generator is not clyde's): the distinct blocks a pass
// touched and the share of the I/Os that went to the hottest tenth of the
// region's blocks. These are statistics of 4096 draws, not timings.

// offsetStats is the shape of one run's offsets.
type offsetStats struct {
	ios      int
	distinct int
	// topDecile is the share of the I/Os in the hottest tenth of the
	// region's blocks.
	topDecile float64
	// outside counts offsets in no zone of the case's, when it has zones.
	outside int
}

func readOffsetStats(path string, blocks int, inZone func(off int64) bool) (offsetStats, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return offsetStats{}, err
	}
	counts := map[int64]int{}
	var s offsetStats
	for _, line := range splitLines(string(data)) {
		off, err := fieldInt(line, 4)
		if err != nil {
			return s, err
		}
		counts[off]++
		s.ios++
		if inZone != nil && !inZone(off) {
			s.outside++
		}
	}
	s.distinct = len(counts)
	var cs []int
	for _, c := range counts {
		cs = append(cs, c)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(cs)))
	top := 0
	for i := 0; i < len(cs) && i < (blocks+9)/10; i++ {
		top += cs[i]
	}
	if s.ios > 0 {
		s.topDecile = float64(top) / float64(s.ios)
	}
	return s, nil
}

// distCases are the distributions and zones of issue 23, each over 16 MiB
// of 4 KiB blocks (4096 blocks, one pass of 4096 I/Os). distinct and top
// are how far clyde's distinct blocks (relative) and top-decile share
// (absolute) may be from fio's. fio 3.33 is repeatable for one job file;
// over six file names (its seed hashes the name) it ranged: zipf:1.2
// 706..752 distinct, top decile 0.917..0.928; pareto:0.2 1242..1291,
// 0.785..0.797; normal:10 1374..1434, 0.523..0.548; zoned 1409..1453,
// 0.622..0.628 (over randseed; 1427 expected from the ranges, and
// zoned_abs's 1253); strided random 1858 (1844 expected). A tolerance is
// about that spread again, and below what a wrong parameter moves:
// zipf:1.1 touches 930..982 blocks (0.86..0.87 in the top decile),
// pareto:0.3 1831..1870 (0.57..0.58), normal:20 1515..1581 (0.48..0.51),
// zoned:50/10:40/20:10/70 0.55..0.56 in the top decile.
var distCases = []struct {
	name, body      string
	distinct, top   float64
	zone            func(off int64) bool
	exactlyDistinct bool
}{
	{name: "zipf:1.2", body: "rw=randread\nrandom_distribution=zipf:1.2\n", distinct: 0.1, top: 0.025},
	{name: "pareto:0.2", body: "rw=randread\nrandom_distribution=pareto:0.2\n", distinct: 0.08, top: 0.03},
	{name: "normal:10", body: "rw=randread\nrandom_distribution=normal:10\n", distinct: 0.06, top: 0.03},
	{name: "zoned", body: "rw=randwrite\nrandom_distribution=zoned:60/10:30/20:10/70\n", distinct: 0.06, top: 0.03},
	{name: "zoned_abs", body: "rw=randread\nrandom_distribution=zoned_abs:60/1m:30/3m:10/12m\n", distinct: 0.06, top: 0.03},
	{name: "strided, zonesize above zonerange", body: "rw=write\nzonemode=strided\nzonesize=2m\nzonerange=1m\nzoneskip=1m\n", exactlyDistinct: true,
		zone: func(off int64) bool { return off%(2<<20) < 1<<20 }},
	{name: "strided sequential", body: "rw=read\nzonemode=strided\nzonesize=1m\nzoneskip=3m\n", exactlyDistinct: true,
		zone: func(off int64) bool { return off%(4<<20) < 1<<20 }},
	{name: "strided random", body: "rw=randread\nzonemode=strided\nzonesize=1m\nzonerange=4m\nzoneskip=4m\n", distinct: 0.06, top: 0.03,
		zone: func(off int64) bool { return off%(8<<20) < 4<<20 }},
}

func TestDistributionsAgainstFio(t *testing.T) {
	fio := fioBinary(t)
	const blocks = 4096
	text := func(body string) string {
		return "[dist]\nfilename=d.dat\nsize=16m\nbs=4k\ninvalidate=0\nwrite_lat_log=lg\nlog_offset=1\n" + body
	}
	// fio's runs at once, a few at a time (a shared 2-core machine);
	// clyde's then one after another.
	type fioRun struct {
		v   view
		dir string
		err error
	}
	runs := make([]chan fioRun, len(distCases))
	slots := make(chan struct{}, 3)
	for i, c := range distCases {
		runs[i] = make(chan fioRun, 1)
		dir := t.TempDir()
		go func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			v, err := runFio(fio, dir, text(c.body), false)
			runs[i] <- fioRun{v, dir, err}
		}()
	}
	for i, c := range distCases {
		t.Run(c.name, func(t *testing.T) {
			run := <-runs[i]
			if run.err != nil {
				t.Fatal(run.err)
			}
			want, fdir, cdir := run.v, run.dir, t.TempDir()
			got := runClydeIn(t, cdir, text(c.body))
			want.files, got.files = nil, nil
			for _, d := range compareRuns(want, got, nil, false, 0) {
				t.Errorf("%s (clyde's notes: %q)", d, got.notes)
			}
			fs, err := readOffsetStats(filepath.Join(fdir, "lg_lat.1.log"), blocks, c.zone)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := readOffsetStats(filepath.Join(cdir, "lg_lat.1.log"), blocks, c.zone)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("fio: %d I/Os, %d distinct blocks, top decile %.3f; clyde: %d, %d, %.3f", fs.ios, fs.distinct, fs.topDecile, cs.ios, cs.distinct, cs.topDecile)
			if fs.ios != cs.ios || fs.outside != 0 || cs.outside != 0 {
				t.Errorf("fio logged %d I/Os (%d outside the zones), clyde %d (%d)", fs.ios, fs.outside, cs.ios, cs.outside)
			}
			switch {
			case c.exactlyDistinct:
				if fs.distinct != cs.distinct {
					t.Errorf("fio touched %d distinct blocks, clyde %d", fs.distinct, cs.distinct)
				}
			case relDiff(fs.distinct, cs.distinct) > c.distinct:
				t.Errorf("fio touched %d distinct blocks, clyde %d: more than %.0f%% apart", fs.distinct, cs.distinct, c.distinct*100)
			}
			if d := fs.topDecile - cs.topDecile; d > c.top || -d > c.top {
				t.Errorf("the hottest tenth of the blocks took %.3f of fio's I/Os, %.3f of clyde's: more than %.2f apart", fs.topDecile, cs.topDecile, c.top)
			}
		})
	}
}

func relDiff(a, b int) float64 {
	d := float64(a - b)
	if d < 0 {
		d = -d
	}
	return d / float64(a)
}

// runClydeIn runs the job file as clyde block FILE does in dir, and
// leaves its logs there.
func runClydeIn(t *testing.T, dir, text string) view {
	t.Helper()
	v, _ := clydeInDir(t, dir, text, nil)
	return v
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// fieldInt is the i-th comma-separated field of a log line.
func fieldInt(line string, i int) (int64, error) {
	fields := strings.Split(line, ",")
	if len(fields) <= i {
		return 0, fmt.Errorf("%q has no field %d", line, i)
	}
	return strconv.ParseInt(strings.TrimSpace(fields[i]), 10, 64)
}
