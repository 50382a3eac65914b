package fsbench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/glibcrand"
)

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// TestSeedMatchesBonnie replays real bonnie++ 2.00a -z 42 (an strace of it,
// see testdata/bonnie-z42/extract.py): the same seek offsets and write-backs,
// file names, file sizes and random stat and delete orders.
func TestSeedMatchesBonnie(t *testing.T) {
	matchBonnieDraws(t, "../testdata/bonnie-z42/", glibcrand.New(42))
}

// TestSeedFileMatchesBonnie does the same for -Z: an strace of bonnie++
// 2.00a -Z seeds.bin (testdata/bonnie-Z, made by make-seeds.py; the run
// cycles through its 1000 numbers several times, and every tenth is
// negative).
func TestSeedFileMatchesBonnie(t *testing.T) {
	nums, err := ReadSeedFile(context.Background(), "../testdata/bonnie-Z/seeds.bin")
	if err != nil {
		t.Fatal(err)
	}
	matchBonnieDraws(t, "../testdata/bonnie-Z/", glibcrand.NewSequence(nums))
}

// matchBonnieDraws checks the seek offsets, file names and sizes and random
// visit orders rng gives for -s 16:8k:64:1 -n 1:4096:512:2 against the lists
// extract.py took from an strace of bonnie++ in dir.
func matchBonnieDraws(t *testing.T, dir string, rng *glibcrand.Rand) {
	t.Helper()
	o := DefaultOptions()
	sizeSpec, _ := ParseSizeSpec("16:8k:64:1")
	filesSpec, _ := ParseFilesSpec("1:4096:512:2")
	o.ApplySizeSpec(sizeSpec)
	o.ApplyFilesSpec(filesSpec)
	c := &copyState{rng: rng}

	t.Run("seeks", func(t *testing.T) {
		want := readLines(t, dir+"seeks.txt")
		tickets := seekTickets(c, o.Seeks)
		if len(tickets) != len(want) {
			t.Fatalf("%d tickets, bonnie++ made %d seeks", len(tickets), len(want))
		}
		chunks := o.chunksInFile()
		for i, tk := range tickets {
			kind := "R"
			if tk < 0 {
				kind, tk = "W", -tk
			}
			got := fmt.Sprintf("%d %s", int64(tk)%chunks*int64(o.ChunkBytes), kind)
			if got != want[i] {
				t.Fatalf("seek %d: got %q, bonnie++ did %q", i, got, want[i])
			}
		}
	})
	created := readLines(t, dir+"create.txt")
	var sets [2]*nameSet
	t.Run("names and sizes", func(t *testing.T) {
		if len(created) != 2*o.Files() {
			t.Fatalf("reference has %d files, want %d", len(created), 2*o.Files())
		}
		for k, random := range []bool{false, true} {
			sets[k] = newNameSet(c.rng, o.Files(), random, &o, nil)
			for i := range o.Files() {
				got := fmt.Sprintf("%s %d", sets[k].base(nil, i), sets[k].fileSize(i))
				if want := created[k*o.Files()+i]; got != want {
					t.Fatalf("set %d file %d: got %q, bonnie++ made %q", k, i, got, want)
				}
			}
		}
	})
	if sets[1] == nil {
		t.Fatal("name sets were not built")
	}
	for _, order := range []string{"randstat", "randdel"} {
		t.Run(order, func(t *testing.T) {
			want := readLines(t, dir+order+".txt")
			sets[1].shuffle(c.rng)
			if len(want) != sets[1].n {
				t.Fatalf("bonnie++ visited %d files, the set has %d", len(want), sets[1].n)
			}
			for k := range want {
				if got := string(sets[1].base(nil, sets[1].visit(k))); got != want[k] {
					t.Fatalf("visit %d: got %q, bonnie++ visited %q", k, got, want[k])
				}
			}
		})
	}
}

func TestNamePaths(t *testing.T) {
	o := DefaultOptions()
	o.Dirs = 4
	s := newNameSet(glibcrand.New(1), 8, false, &o, nil)
	perDir := map[string]int{}
	for i := range 8 {
		p := string(s.path(nil, i))
		if !strings.HasSuffix(p, "\x00") {
			t.Fatalf("path %q is not NUL-terminated", p)
		}
		dir, base, ok := strings.Cut(strings.TrimSuffix(p, "\x00"), "/")
		if !ok || len(dir) != 5 {
			t.Fatalf("path %q has no %%05d directory", p)
		}
		if want := fmt.Sprintf("%010x", i); !strings.HasPrefix(base, want) {
			t.Fatalf("sequential name %q does not start with %q", base, want)
		}
		perDir[dir]++
	}
	for d, n := range perDir {
		if n != 2 {
			t.Fatalf("directory %s holds %d files, want an even 2 (bonnie++ overfilled all but the last)", d, n)
		}
	}
	r := newNameSet(glibcrand.New(1), 8, true, &o, nil)
	if base := string(r.base(nil, 5)); !strings.HasSuffix(base, "0000000005") {
		t.Fatalf("random name %q does not end with the index", base)
	}
}

// TestNamesInAnyOrder regenerates names from the marks out of order, as the
// random stat and delete do, and checks they are the names drawn in order.
func TestNamesInAnyOrder(t *testing.T) {
	o := DefaultOptions()
	o.MaxFileBytes, o.MinFileBytes = 4096, 512
	const n = 5*markEvery + 7
	inOrder := newNameSet(glibcrand.New(9), n, true, &o, nil)
	var names []string
	var sizes []int64
	for i := range n {
		names = append(names, string(inOrder.base(nil, i)))
		sizes = append(sizes, inOrder.fileSize(i))
	}
	s := newNameSet(glibcrand.New(9), n, true, &o, nil)
	for _, i := range []int{n - 1, 0, markEvery, markEvery - 1, 3*markEvery + 5, 2, 2, n - 2} {
		if got := string(s.base(nil, i)); got != names[i] {
			t.Errorf("file %d out of order: %q, in order %q", i, got, names[i])
		}
	}
	for _, i := range []int{3, 1, n - 1} {
		if got := s.fileSize(i); got != sizes[i] {
			t.Errorf("file %d's size out of order: %d, in order %d", i, got, sizes[i])
		}
	}
	// The next set takes the marks' memory over, so two sets' marks are
	// never on the heap at once; its names are its own.
	next := newNameSet(glibcrand.New(9), n, false, &o, s)
	if &next.marks[0] != &s.marks[:1][0] {
		t.Error("the next name set allocated its marks anew")
	}
	if got, want := string(next.base(nil, 7)), fmt.Sprintf("%010x", 7); !strings.HasPrefix(got, want) {
		t.Errorf("file 7 of the next set is %q, want it to start with %q", got, want)
	}
}

// TestFeistelOrderIsAPermutation checks that the order used without a
// user's seed visits every file exactly once, for sizes on and off powers
// of two, and that two draws give two orders.
func TestFeistelOrderIsAPermutation(t *testing.T) {
	rng := glibcrand.New(3)
	for _, n := range []int{1, 2, 3, 5, 64, 1000, 1024, 1025, 70001} {
		seen := make([]bool, n)
		o := newFeistelOrder(rng, n)
		moved := 0
		for k := range n {
			i := o.at(k)
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("n=%d: visit %d is file %d, out of range or seen before", n, k, i)
			}
			seen[i] = true
			if i != k {
				moved++
			}
		}
		if n >= 64 && moved < n/2 {
			t.Errorf("n=%d: only %d of the files moved; the order is hardly random", n, moved)
		}
		if n >= 64 {
			p := newFeistelOrder(rng, n)
			same := 0
			for k := range n {
				if p.at(k) == o.at(k) {
					same++
				}
			}
			if same > n/4 {
				t.Errorf("n=%d: two draws agree on %d visits", n, same)
			}
		}
	}
}

// TestRandomOrderFollowsTheSeed: a seed the user gave gets bonnie++'s
// random_sort (4 bytes per file), a drawn one the bijection (none).
func TestRandomOrderFollowsTheSeed(t *testing.T) {
	given := DefaultOptions()
	given.Seed, given.SeedSet = 5, true
	given.Resolve()
	drawn := DefaultOptions()
	drawn.Resolve()
	drawn.Resolve() // resolving twice (CLI, then Run) keeps it drawn
	for _, tc := range []struct {
		name  string
		o     Options
		exact bool
	}{{"-z", given, true}, {"drawn", drawn, false}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newNameSet(glibcrand.New(1), 100, true, &tc.o, nil)
			s.shuffle(glibcrand.New(1))
			if (s.perm != nil) != tc.exact {
				t.Errorf("perm kept: %v, want %v", s.perm != nil, tc.exact)
			}
		})
	}
}
