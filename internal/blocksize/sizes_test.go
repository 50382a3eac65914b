package blocksize

import (
	"strconv"
	"strings"
	"testing"
)

const kib = int64(1024)

// TestResolve is fio's bssplit_ddir: an entry without a share
// takes what the others leave (divided among them, in fio's unsigned
// arithmetic), and the list is sorted by share, stably.
func TestResolve(t *testing.T) {
	cases := []struct {
		name string
		in   []Share
		want string
	}{
		{"sorted by share", []Share{{Size: 4 * kib, Pct: 10}, {Size: 64 * kib, Pct: 50}, {Size: 32 * kib, Pct: 40}}, "4096/10 32768/40 65536/50"},
		{"one without a share takes the rest", []Share{{Size: 4 * kib, Pct: 50}, {Size: 8 * kib, Pct: NoPct}}, "4096/50 8192/50"},
		{"three without share them", []Share{{Size: 4 * kib, Pct: NoPct}, {Size: 8 * kib, Pct: NoPct}, {Size: 16 * kib, Pct: NoPct}}, "4096/33 8192/33 16384/33"},
		{"a lone size has 0", []Share{{Size: 4 * kib, Pct: NoPct}}, "4096/0"},
		{"not adding to 100 stays", []Share{{Size: 4 * kib, Pct: 10}, {Size: 64 * kib, Pct: 50}}, "4096/10 65536/50"},
		{"past 100 with one without: it wraps and sorts first", []Share{{Size: 4 * kib, Pct: 60}, {Size: 8 * kib, Pct: 50}, {Size: 16 * kib, Pct: NoPct}}, "16384/4294967286 8192/50 4096/60"},
		{"ties keep their order", []Share{{Size: 8 * kib, Pct: 20}, {Size: 4 * kib, Pct: 20}, {Size: 2 * kib, Pct: 60}}, "8192/20 4096/20 2048/60"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, e := range Resolve(c.in) {
				got = append(got, strconv.FormatInt(e.Size, 10)+"/"+strconv.FormatUint(uint64(uint32(e.Pct)), 10))
			}
			if s := strings.Join(got, " "); s != c.want {
				t.Errorf("%s, want %s", s, c.want)
			}
		})
	}
}

func dirs(r, w, tr Dir) Sizes { return Sizes{Dirs: [3]Dir{r, w, tr}} }

func one(bs int64) Dir { return Dir{Min: bs, Max: bs} }

var (
	readMode      = Mode{Dirs: []int{Read}}
	randReadMode  = Mode{Random: true, Dirs: []int{Read}}
	randWriteMode = Mode{Random: true, Dirs: []int{Write}}
	mixedMode     = Mode{Dirs: []int{Read, Write}}
)

// TestFixedSize: sizes that come down to one size for a mode, and the
// largest a mode issues otherwise; a random mode needs all three
// directions of one size (fio's map is sized by the smallest of all).
func TestFixedSize(t *testing.T) {
	cases := []struct {
		name    string
		s       Sizes
		m       Mode
		fixed   bool
		largest int64
	}{
		{"one size", Fixed(8 * kib), Mode{Random: true, Dirs: []int{Read, Write}}, true, 8 * kib},
		{"reads of bs=4k,8k", dirs(one(4*kib), one(8*kib), one(8*kib)), readMode, true, 4 * kib},
		{"random reads of bs=4k,8k", dirs(one(4*kib), one(8*kib), one(8*kib)), randReadMode, false, 4 * kib},
		{"random writes of bs=4k,8k: the map is 4k", dirs(one(4*kib), one(8*kib), one(8*kib)), randWriteMode, false, 8 * kib},
		{"mixed of bs=4k,8k", dirs(one(4*kib), one(8*kib), one(8*kib)), mixedMode, false, 8 * kib},
		{"a range", Sizes{Dirs: [3]Dir{{Min: kib, Max: 4 * kib}, one(kib), one(kib)}}, readMode, false, 4 * kib},
		{"blockalign on random", dirs(Dir{Min: 8 * kib, Max: 8 * kib, Align: 4 * kib}, one(8*kib), one(8*kib)), randReadMode, false, 8 * kib},
		{"blockalign on sequential", dirs(Dir{Min: 8 * kib, Max: 8 * kib, Align: 4 * kib}, one(8*kib), one(8*kib)), readMode, true, 8 * kib},
		{"bs_is_seq_rand: random takes the writes'", Sizes{Dirs: [3]Dir{one(4 * kib), {Min: 8 * kib, Max: 16 * kib}, one(4 * kib)}, SeqRand: true}, randReadMode, false, 16 * kib},
		{"bs_is_seq_rand: sequential takes the reads'", Sizes{Dirs: [3]Dir{one(4 * kib), {Min: 8 * kib, Max: 16 * kib}, one(4 * kib)}, SeqRand: true}, Mode{Dirs: []int{Write}}, true, 4 * kib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bs, ok := c.s.FixedSize(c.m)
			if ok != c.fixed || (ok && bs != c.largest) {
				t.Errorf("FixedSize %d, %v; want %v", bs, ok, c.fixed)
			}
			if l := c.s.Largest(c.m); l != c.largest {
				t.Errorf("Largest %d, want %d", l, c.largest)
			}
		})
	}
}

// TestValidate: fio's own rules for a direction's sizes and a split.
func TestValidate(t *testing.T) {
	rng := func(lo, hi int64) Sizes { return dirs(Dir{Min: lo, Max: hi}, one(lo), one(lo)) }
	split := func(es ...Share) Sizes { return dirs(Dir{Min: 1, Max: 1, Split: es}, one(1), one(1)) }
	cases := []struct {
		name, want string
		s          Sizes
	}{
		{"fine", "", rng(4*kib, 64*kib)},
		{"no size", "above 0", rng(0, 4*kib)},
		{"largest below smallest", "above 0", rng(8*kib, 4*kib)},
		{"past one I/O", "larger than one I/O", rng(4*kib, 1<<32)},
		{"negative blockalign", "outside 0..", dirs(Dir{Min: kib, Max: kib, Align: -1}, one(kib), one(kib))},
		{"shares past 100 with two without", "more than 100", split(Share{Size: 4 * kib, Pct: 80}, Share{Size: 8 * kib, Pct: 30}, Share{Size: 16 * kib, Pct: NoPct}, Share{Size: 32 * kib, Pct: NoPct})},
		{"past 100 with one without is fio's", "", split(Share{Size: 4 * kib, Pct: 80}, Share{Size: 8 * kib, Pct: 30}, Share{Size: 16 * kib, Pct: NoPct})},
		{"a share out of range", "outside 1..100", split(Share{Size: 4 * kib, Pct: 101})},
		{"a split size of 0", "outside 1..", split(Share{Size: 0, Pct: 50})},
		{"too many sizes", "at most 64", split(make([]Share, MaxSplit+1)...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.s.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%v, want a refusal saying %q", err, c.want)
			}
		})
	}
	if err := SplitError(Write, []Share{{Size: 4 * kib, Pct: 200}}); err == nil || !strings.Contains(err.Error(), "write") {
		t.Errorf("SplitError: %v, want the write direction named", err)
	}
}

// TestMisaligned: a size, a range drawn unaligned or a random mode's
// blockalign that is not a multiple of an alignment is named.
func TestMisaligned(t *testing.T) {
	cases := []struct {
		name, want string
		s          Sizes
		m          Mode
	}{
		{"aligned", "", dirs(Dir{Min: 4 * kib, Max: 64 * kib}, one(4*kib), one(4*kib)), readMode},
		{"a size off 512", "read block size 1000-4096", dirs(Dir{Min: 1000, Max: 4 * kib}, one(4*kib), one(4*kib)), readMode},
		{"only used directions count", "", dirs(one(4*kib), one(1000), one(4*kib)), readMode},
		{"bs_unaligned", "drawn with bs_unaligned", Sizes{Dirs: [3]Dir{{Min: 4 * kib, Max: 8 * kib}, one(4 * kib), one(4 * kib)}, Unaligned: true}, readMode},
		{"blockalign on random", "write blockalign 1000", dirs(one(4*kib), Dir{Min: 4 * kib, Max: 4 * kib, Align: 1000}, one(4*kib)), randReadMode},
		{"blockalign on sequential", "", dirs(one(4*kib), Dir{Min: 4 * kib, Max: 4 * kib, Align: 1000}, one(4*kib)), readMode},
		{"seq_rand: random uses the writes'", "write block size", Sizes{Dirs: [3]Dir{one(4 * kib), one(1000), one(4 * kib)}, SeqRand: true}, randReadMode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			what, ok := c.s.Misaligned(c.m, 512)
			if ok != (c.want == "") || !strings.Contains(what, c.want) {
				t.Errorf("%q, %v; want %q", what, ok, c.want)
			}
		})
	}
}

// TestVerifyInterval is fio's fixup_options: the smallest write size
// when it divides the largest, else their greatest common divisor.
func TestVerifyInterval(t *testing.T) {
	for _, c := range []struct{ lo, hi, want int64 }{
		{4 * kib, 4 * kib, 4 * kib}, {4 * kib, 64 * kib, 4 * kib}, {3 * kib, 8 * kib, kib}, {6 * kib, 9 * kib, 3 * kib}, {512, 1000, 8},
	} {
		if got := (&Dir{Min: c.lo, Max: c.hi}).VerifyInterval(); got != c.want {
			t.Errorf("%d-%d: %d, want %d", c.lo, c.hi, got, c.want)
		}
	}
}

// TestStringAndConfig: fio's words for the sizes, and the record of them
// with splits resolved and alignment given.
func TestStringAndConfig(t *testing.T) {
	s := Sizes{Dirs: [3]Dir{{Min: 4 * kib, Max: 64 * kib, Split: []Share{{Size: 64 * kib, Pct: NoPct}, {Size: 4 * kib, Pct: 10}}}, one(8 * kib), {Min: 4 * kib, Max: 4 * kib, Align: 512}}, SeqRand: true}
	if got, want := s.String(), "(R) 4096-65536, (W) 8192, (T) 4096"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	c := s.Config()
	if len(c.Read.Split) != 2 || c.Read.Split[0].BSBytes != 4*kib || c.Read.Split[1].Pct != 90 {
		t.Errorf("read split %+v, want 4k/10 then 64k/90", c.Read.Split)
	}
	if c.Write.AlignBytes != 8*kib || c.Trim.AlignBytes != 512 || len(c.Write.Split) != 0 || !c.SeqRand || c.Unaligned {
		t.Errorf("config %+v", c)
	}
}

// FuzzResolve: any split resolves to the same sizes, sorted by share as
// fio's bs_cmp compares them, each given share kept.
func FuzzResolve(f *testing.F) {
	f.Add([]byte{10, 50, 40})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{60, 50, 0})
	f.Fuzz(func(t *testing.T, pcts []byte) {
		in := make([]Share, 0, len(pcts))
		for i, p := range pcts {
			pct := int(p) % 101
			if pct == 0 {
				pct = NoPct
			}
			in = append(in, Share{Size: int64(i + 1), Pct: pct})
		}
		out := Resolve(in)
		if len(out) != len(in) {
			t.Fatalf("%d entries from %d", len(out), len(in))
		}
		for i, e := range out {
			if i > 0 && int32(uint32(out[i-1].Pct)) > int32(uint32(e.Pct)) {
				t.Fatalf("not sorted by share: %v", out)
			}
			if given := in[e.Size-1].Pct; given != NoPct && given != e.Pct {
				t.Fatalf("size %d: share %d, given %d", e.Size, e.Pct, given)
			}
		}
	})
}
