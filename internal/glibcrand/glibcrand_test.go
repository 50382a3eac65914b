package glibcrand

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestMatchesGlibc compares the stream with values glibc's rand() printed
// (testdata/glibcrand/gen.c says how the file was made).
func TestMatchesGlibc(t *testing.T) {
	f, err := os.Open("../../testdata/glibcrand/glibc-rand.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 42 {
			t.Fatalf("line %d: %d fields, want 42", lines+1, len(fields))
		}
		seed, err := strconv.ParseUint(fields[0], 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fields[0], func(t *testing.T) {
			g := New(uint32(seed))
			var v int32
			for i := range 100000 {
				v = g.Int()
				if i < 40 {
					want, _ := strconv.ParseInt(fields[1+i], 10, 32)
					if int64(v) != want {
						t.Fatalf("value %d: got %d, glibc gave %d", i, v, want)
					}
				}
			}
			want, _ := strconv.ParseInt(fields[41], 10, 32)
			if int64(v) != want {
				t.Fatalf("value 99999: got %d, glibc gave %d", v, want)
			}
		})
		lines++
	}
	if lines < 5 {
		t.Fatalf("only %d seeds in the reference file", lines)
	}
}

func TestReseedRestarts(t *testing.T) {
	g := New(7)
	first := g.Int()
	g.Int()
	g.Seed(7)
	if got := g.Int(); got != first {
		t.Fatalf("after Seed(7) got %d, want %d", got, first)
	}
}

func TestSequenceCyclesAndResets(t *testing.T) {
	g := NewSequence([]int32{7, 0, 2147483647})
	var got []int32
	for range 7 {
		got = append(got, g.Int())
	}
	want := []int32{7, 0, 2147483647, 7, 0, 2147483647, 7}
	if !slices.Equal(got, want) {
		t.Fatalf("sequence gave %v, want %v", got, want)
	}
	g.Reset()
	if v := g.Int(); v != 7 {
		t.Fatalf("after Reset the first value is %d, want 7", v)
	}
}

func TestResetReseeds(t *testing.T) {
	g := New(42)
	first := []int32{g.Int(), g.Int(), g.Int()}
	g.Int()
	g.Reset()
	again := []int32{g.Int(), g.Int(), g.Int()}
	if !slices.Equal(first, again) {
		t.Fatalf("after Reset %v, want %v as srand(42) gives", again, first)
	}
}

// TestRewind checks that a stream rewound to a mark repeats what followed
// the mark, for the generator and a -Z list, from any position.
func TestRewind(t *testing.T) {
	streams := map[string]func() *Rand{
		"generator": func() *Rand { return New(42) },
		"list":      func() *Rand { return NewSequence([]int32{5, 6, 7}) },
	}
	for name, mk := range streams {
		t.Run(name, func(t *testing.T) {
			g := mk()
			for skip := range 80 {
				m := g.Mark()
				want := []int32{g.Int(), g.Int(), g.Int(), g.Int()}
				other := mk() // a copy elsewhere in the stream rewinds too
				other.Rewind(m)
				g.Rewind(m)
				for k, w := range want {
					if got := g.Int(); got != w {
						t.Fatalf("after %d draws, value %d after rewind: got %d, want %d", skip, k, got, w)
					}
					if got := other.Int(); got != w {
						t.Fatalf("after %d draws, value %d in a rewound copy: got %d, want %d", skip, k, got, w)
					}
				}
				g.Rewind(m)
				g.Int() // move on by one
			}
		})
	}
}

// TestSkipRuns checks that skipping runs leaves the stream where drawing
// them does, for the generator and a list.
func TestSkipRuns(t *testing.T) {
	for name, mk := range map[string]func() *Rand{
		"generator": func() *Rand { return New(7) },
		"list":      func() *Rand { return NewSequence([]int32{3, 14, 15, 92, 65}) },
	} {
		t.Run(name, func(t *testing.T) {
			drawn, skipped := mk(), mk()
			for n := range 50 {
				for range n {
					for range drawn.Int() % 13 {
						drawn.Int()
					}
				}
				skipped.SkipRuns(n, 13)
				if a, b := drawn.Int(), skipped.Int(); a != b {
					t.Fatalf("after %d more runs: drawing gives %d next, skipping %d", n, a, b)
				}
			}
		})
	}
}
