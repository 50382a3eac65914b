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
			sets[k] = newNameSet(c.rng, o.Files(), random, &o)
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
			for k, idx := range sets[1].perm {
				if got := string(sets[1].base(nil, int(idx))); got != want[k] {
					t.Fatalf("visit %d: got %q, bonnie++ visited %q", k, got, want[k])
				}
			}
		})
	}
}

func TestNamePaths(t *testing.T) {
	o := DefaultOptions()
	o.Dirs = 4
	s := newNameSet(glibcrand.New(1), 8, false, &o)
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
	r := newNameSet(glibcrand.New(1), 8, true, &o)
	if base := string(r.base(nil, 5)); !strings.HasSuffix(base, "0000000005") {
		t.Fatalf("random name %q does not end with the index", base)
	}
}
