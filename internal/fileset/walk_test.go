package fileset

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/clydebench/clyde/internal/offsets"
)

// regions are n files of blocks blocks of 1 byte each.
func regions(n int, blocks int64) []Region {
	rs := make([]Region, n)
	for i := range rs {
		rs[i] = Region{Size: blocks, Limit: blocks}
	}
	return rs
}

// walkOptions is a sequential read of n files of blocks one-byte blocks.
func walkOptions(n int, blocks int64) Options {
	return Options{Regions: regions(n, blocks), BS: 1, RNG: rand.NewPCG(1, 2), Pick: rand.NewPCG(3, 4),
		ServiceRNG: rand.NewPCG(5, 6), DistRNG: rand.NewPCG(7, 8)}
}

func read() int { return 0 }

// walkPass is the I/Os of one pass, the walk's until no file can place one.
func walkPass(k *Walk) []IO {
	var ios []IO
	for {
		io, ok := k.Place(read)
		if !ok {
			return ios
		}
		ios = append(ios, io)
	}
}

// filesOf is the files of a pass's I/Os, in order.
func filesOf(ios []IO) string {
	s := ""
	for _, io := range ios {
		s += fmt.Sprint(io.File)
	}
	return s
}

// TestServiceOrder: the files each I/O goes to, as fio 3.33's
// __get_next_file picks them: in turn, runs of N, one until it is done,
// at most openfiles in use at once.
func TestServiceOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"roundrobin", func(o *Options) {}, "012301230123"},
		// A run ends where its file is done.
		{"roundrobin:2", func(o *Options) { o.Service.Run = 2 }, "001122330123"},
		{"sequential", func(o *Options) { o.Service.Kind = Sequential }, "000111222333"},
		{"sequential:2 keeps to the file", func(o *Options) { o.Service = Service{Kind: Sequential, Run: 2} }, "000111222333"},
		{"openfiles=1", func(o *Options) { o.Open = 1 }, "000111222333"},
		{"openfiles=2", func(o *Options) { o.Open = 2 }, "010101232323"},
		{"openfiles above the files", func(o *Options) { o.Open = 9 }, "012301230123"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := walkOptions(4, 3)
			tc.edit(&o)
			if got := filesOf(walkPass(New(o))); got != tc.want {
				t.Errorf("files %s, want %s", got, tc.want)
			}
		})
	}
}

// TestSequentialOffsets: each file from its region's start, a block at a
// time, none past its limit; a pass ends with every file done.
func TestSequentialOffsets(t *testing.T) {
	o := walkOptions(2, 0)
	o.BS = 4
	o.Regions = []Region{{Offset: 8, Size: 12, Limit: 20}, {Offset: 0, Size: 12, Limit: 10}}
	got := ""
	for _, io := range walkPass(New(o)) {
		got += fmt.Sprintf("%d@%d ", io.File, io.Offset)
	}
	if want := "0@8 1@0 0@12 1@4 0@16 "; got != want {
		t.Errorf("I/Os %s, want %s (file 1's third block ends past its limit)", got, want)
	}
}

// TestRandomMapCoversEachBlock: a random read with a random map draws
// every block of every file once a pass, and the files' blocks again in
// the next pass.
func TestRandomMapCoversEachBlock(t *testing.T) {
	o := walkOptions(3, 50)
	o.Random, o.RandomMap, o.Service.Kind = true, true, Random
	k := New(o)
	for pass := range 2 {
		seen := map[[2]int64]bool{}
		ios := walkPass(k)
		for _, io := range ios {
			seen[[2]int64{int64(io.File), io.Offset}] = true
		}
		if len(ios) != 150 || len(seen) != 150 {
			t.Errorf("pass %d: %d I/Os on %d blocks, want each of 150 once", pass, len(ios), len(seen))
		}
		k.NewPass()
	}
}

// TestDropOnReopen: a file is dropped before its first I/O after it is
// opened again (a new pass), never on its first open; and, time based,
// each time its random map starts over.
func TestDropOnReopen(t *testing.T) {
	o := walkOptions(3, 2)
	o.DropOnOpen = true
	k := New(o)
	drops := func(ios []IO) string {
		s := ""
		for _, io := range ios {
			if io.Drop {
				s += fmt.Sprint(io.File)
			}
		}
		return s
	}
	if got := drops(walkPass(k)); got != "" {
		t.Errorf("first pass dropped %s, want none", got)
	}
	k.NewPass()
	if got := drops(walkPass(k)); got != "012" {
		t.Errorf("second pass dropped %s, want each file once, as it reopens", got)
	}
	o = walkOptions(1, 4)
	o.DropOnOpen, o.Random, o.RandomMap, o.TimeBased = true, true, true, true
	k = New(o)
	got := ""
	for range 12 {
		io, _ := k.Place(read)
		got += map[bool]string{true: "d", false: "."}[io.Drop]
	}
	if got != "....d...d..." {
		t.Errorf("time based random map drops %s, want one each time the map starts over", got)
	}
}

// TestRandomService: a uniform random service spreads the I/Os over the
// files; a zipf one with center 0.5 puts most on the middle file, where
// fio's rank 0 lands, and starts a file over instead of leaving it done.
func TestRandomService(t *testing.T) {
	o := walkOptions(4, 100)
	o.Service.Kind = Random
	per := [4]int{}
	for _, io := range walkPass(New(o)) {
		per[io.File]++
	}
	if per != [4]int{100, 100, 100, 100} {
		t.Errorf("uniform service: per file %v, want every block of each", per)
	}
	o = walkOptions(4, 10)
	o.Service = Service{Kind: Random, Dist: offsets.Distribution{Kind: offsets.Zipf, Param: 1.2, Center: 0.5, HasCenter: true}}
	k := New(o)
	per = [4]int{}
	for range 1000 {
		io, ok := k.Place(read)
		if !ok {
			t.Fatal("a non-uniform service ran out of files")
		}
		per[io.File]++
	}
	if per[2] <= per[0]+per[1]+per[3] {
		t.Errorf("zipf service: per file %v, want most on file 2", per)
	}
}
