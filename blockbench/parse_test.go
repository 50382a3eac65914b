package blockbench

import (
	"errors"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4096", 4096, true}, {"4k", 4096, true}, {"4K", 4096, true}, {"4KiB", 4096, true}, {"4kb", 4096, true},
		{"1m", 1 << 20, true}, {"1MiB", 1 << 20, true}, {"1g", 1 << 30, true}, {"1GiB", 1 << 30, true},
		{"2t", 2 << 40, true}, {"0", 0, true}, {"512b", 512, true},
		{"", 0, false}, {"k", 0, false}, {"-4k", 0, false}, {"4x", 0, false}, {"1.5m", 0, false},
		{"99999999999999999999", 0, false}, {"9999999999t", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSize("--size", tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
			}
			if err != nil && !result.IsUsage(err) {
				t.Errorf("error is not a usage error: %v", err)
			}
		})
	}
}

func TestParseBSList(t *testing.T) {
	got, err := ParseBSList("4k,64k,1m")
	if err != nil || len(got) != 3 || got[0] != 4096 || got[1] != 64<<10 || got[2] != 1<<20 {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "4k,", "0", "4k,0", "4k;8k"} {
		if _, err := ParseBSList(bad); !result.IsUsage(err) {
			t.Errorf("ParseBSList(%q) err = %v, want usage error", bad, err)
		}
	}
}

func TestParseBuffer(t *testing.T) {
	cases := []struct {
		in   string
		want Buffer
		ok   bool
	}{
		{"random", Buffer{Kind: BufferRandom}, true},
		{"zero", Buffer{Kind: BufferZero}, true},
		{"compressible:70", Buffer{Kind: BufferCompressible, CompressPct: 70}, true},
		{"compressible:0", Buffer{Kind: BufferCompressible}, true},
		{"compressible", Buffer{}, false}, {"compressible:101", Buffer{}, false}, {"compressible:x", Buffer{}, false},
		{"random:5", Buffer{}, false}, {"ones", Buffer{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseBuffer(tc.in)
			if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
				t.Fatalf("ParseBuffer(%q) = %+v, %v", tc.in, got, err)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"5": 5 * time.Second, "500ms": 500 * time.Millisecond, "2m": 2 * time.Minute, "0": 0, "-1": -time.Second} {
		if got, err := ParseDuration("--runtime", in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseDuration("--runtime", "soon"); !result.IsUsage(err) {
		t.Errorf("err = %v, want usage error", err)
	}
}

func TestCompressibleBuffer(t *testing.T) {
	buf := make([]byte, 4096)
	fillBuffer(buf, Buffer{Kind: BufferCompressible, CompressPct: 75}, newRand(1, 1))
	zeros := 0
	for _, b := range buf {
		if b == 0 {
			zeros++
		}
	}
	// 75% of every 512-byte chunk is zeros; random bytes add ~1/256 more.
	if share := float64(zeros) / float64(len(buf)); share < 0.74 || share > 0.77 {
		t.Errorf("zero share %.3f, want about 0.75", share)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(j *Job)
		flag string
	}{
		{"ok", func(j *Job) {}, ""},
		{"no filename", func(j *Job) { j.Filename = " " }, "--filename"},
		{"unknown rw", func(j *Job) { j.RW = "randappend" }, "--rw"},
		{"unknown engine", func(j *Job) { j.IOEngine = "solarisaio" }, "--ioengine"},
		{"rwmixread below 0", func(j *Job) { j.RWMixRead = -1 }, "--rwmixread"},
		{"rwmixread above 100", func(j *Job) { j.RWMixRead = 101 }, "--rwmixread"},
		{"bs 0", func(j *Job) { j.BlockSizes = []int64{0} }, "--bs"},
		{"bs larger than size", func(j *Job) { j.Size, j.BlockSizes = 4096, []int64{8192} }, "--bs"},
		{"one of the bs list larger than size", func(j *Job) { j.Size, j.BlockSizes = 4096, []int64{4096, 8192} }, "--bs"},
		{"bs unaligned for direct", func(j *Job) { j.Direct, j.BlockSizes = true, []int64{4000} }, "--bs"},
		{"offset unaligned for direct", func(j *Job) { j.Direct, j.Offset = true, 100 }, "--offset"},
		{"negative offset", func(j *Job) { j.Offset = -1 }, "--offset"},
		{"negative size", func(j *Job) { j.Size = -1 }, "--size"},
		{"iodepth 0", func(j *Job) { j.IODepth = 0 }, "--iodepth"},
		{"numjobs 0", func(j *Job) { j.NumJobs = 0 }, "--numjobs"},
		{"negative runtime", func(j *Job) { j.Runtime = -time.Second }, "--runtime"},
		{"negative ramp", func(j *Job) { j.RampTime = -time.Second }, "--ramp_time"},
		{"negative fsync", func(j *Job) { j.Fsync = -1 }, "--fsync"},
		{"bad buffer", func(j *Job) { j.Buffer = Buffer{Kind: BufferCompressible, CompressPct: 120} }, "--buffer"},
		{"direct aligned", func(j *Job) { j.Direct, j.Offset, j.BlockSizes = true, 1<<20, []int64{512, 4096} }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := NewJob("/tmp/x")
			tc.edit(&j)
			err := j.Validate()
			if tc.flag == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ue *result.UsageError
			if !errors.As(err, &ue) || ue.Flag != tc.flag {
				t.Fatalf("err = %v, want a usage error naming %s", err, tc.flag)
			}
		})
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4k", "1GiB", "0", "12345", "9t", "", "1m1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize("--size", s)
		if err != nil {
			if !result.IsUsage(err) {
				t.Fatalf("non-usage error %v", err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
	})
}

func FuzzParseBSList(f *testing.F) {
	for _, s := range []string{"4k", "4k,64k,1m", ",", "0", "1,2,3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		list, err := ParseBSList(s)
		if err != nil {
			if !result.IsUsage(err) {
				t.Fatalf("non-usage error %v", err)
			}
			return
		}
		for _, bs := range list {
			if bs <= 0 {
				t.Fatalf("ParseBSList(%q) gave %d", s, bs)
			}
		}
	})
}

func FuzzParseBuffer(f *testing.F) {
	for _, s := range []string{"random", "zero", "compressible:50", "compressible:-1", "x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBuffer(s)
		if err != nil {
			if !result.IsUsage(err) {
				t.Fatalf("non-usage error %v", err)
			}
			return
		}
		if b.validate() != nil {
			t.Fatalf("ParseBuffer(%q) accepted an invalid %+v", s, b)
		}
		if again, err := ParseBuffer(b.String()); err != nil || again != b {
			t.Fatalf("round trip of %q: %+v, %v", s, again, err)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"5", "500ms", "2m", "-3", "1h30m", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := ParseDuration("--runtime", s); err != nil && !result.IsUsage(err) {
			t.Fatalf("non-usage error %v", err)
		}
	})
}
