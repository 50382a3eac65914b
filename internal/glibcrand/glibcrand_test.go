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
