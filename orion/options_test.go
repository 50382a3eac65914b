package orion

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Options)
		flag string // "" when valid
	}{
		{"simple", func(o *Options) {}, ""},
		{"unknown run", func(o *Options) { o.Run = "fast" }, "-run"},
		{"no run", func(o *Options) { o.Run = "" }, "-run"},
		{"write above 100", func(o *Options) { o.Write = 101 }, "-write"},
		{"write below 0", func(o *Options) { o.Write = -1 }, "-write"},
		{"write 100", func(o *Options) { o.Write = 100 }, ""},
		{"unknown matrix", func(o *Options) { o.Run, o.Matrix = RunAdvanced, "cube" }, "-matrix"},
		{"matrix with simple", func(o *Options) { o.Matrix = MatrixDetailed }, "-matrix"},
		{"num_small with normal", func(o *Options) { o.Run, o.NumSmall = RunNormal, 3 }, "-num_small"},
		{"num_small with row", func(o *Options) { o.Run, o.Matrix, o.NumSmall = RunAdvanced, MatrixRow, 3 }, "-num_small"},
		{"num_large with col", func(o *Options) { o.Run, o.Matrix, o.NumLarge = RunAdvanced, MatrixCol, 3 }, "-num_large"},
		{"point without loads", func(o *Options) { o.Run, o.Matrix = RunAdvanced, MatrixPoint }, "-num_small"},
		{"point", func(o *Options) { o.Run, o.Matrix, o.NumSmall, o.NumLarge = RunAdvanced, MatrixPoint, 4, 1 }, ""},
		{"unknown type", func(o *Options) { o.Type = "mixed" }, "-type"},
		{"unknown simulate", func(o *Options) { o.Simulate = "raid5" }, "-simulate"},
		{"no streams", func(o *Options) { o.NumStreamIO = 0 }, "-num_streamIO"},
		{"negative disks", func(o *Options) { o.NumDisks = -2 }, "-num_disks"},
		{"zero duration", func(o *Options) { o.Duration = 0 }, "-duration"},
		{"negative cache", func(o *Options) { o.CacheSize = -5 }, "-cache_size"},
		{"large size 0", func(o *Options) { o.SizeLarge = 0 }, "-size_large"},
		{"no small size", func(o *Options) { o.SizeSmall = nil }, "-size_small"},
		{"stripe", func(o *Options) { o.Simulate, o.Stripe = "raid0", 2048 }, ""},
		{"negative stripe", func(o *Options) { o.Stripe = -1 }, "-stripe"},
		{"stripe above 1 GiB", func(o *Options) { o.Stripe = 1<<20 + 1 }, "-stripe"},
		{"hugenotneeded", func(o *Options) { o.HugeNotNeeded = true }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions(RunSimple)
			tc.edit(&o)
			err := o.Validate()
			if tc.flag == "" && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tc.flag != "" && !isUsageFor(err, tc.flag) {
				t.Fatalf("err %v, want a usage error naming %s", err, tc.flag)
			}
		})
	}
}

// The run levels map to ORION's advanced tests (11.2 Performance Tuning
// Guide): simple is -matrix basic, normal detailed, oltp a row without
// large I/O, dss a column without small I/O.
func TestRunLevelsMap(t *testing.T) {
	cases := map[string]mapped{
		RunSimple:   {matrix: MatrixBasic, smallIO: true, largeIO: true},
		RunNormal:   {matrix: MatrixDetailed, smallIO: true, largeIO: true},
		RunOLTP:     {matrix: MatrixRow, smallIO: true},
		RunDSS:      {matrix: MatrixCol, largeIO: true},
		RunAdvanced: {matrix: MatrixBasic, smallIO: true, largeIO: true},
	}
	for run, want := range cases {
		o := DefaultOptions(run)
		got, err := o.mapping()
		if err != nil || got != want {
			t.Errorf("%s maps to %+v (%v), want %+v", run, got, err, want)
		}
	}
}

func TestParseSizeList(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		bad  bool
	}{
		{"8", []int{8}, false},
		{"1,2,4,8", []int{1, 2, 4, 8}, false},
		{" 4 , 16", []int{4, 16}, false},
		{"0", nil, true},
		{"8k", nil, true},
		{"4,4", nil, true},
		{"", nil, true},
		{"1,", nil, true},
		{"2000000", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSizeList("-size_small", tc.in)
			if (err != nil) != tc.bad || !slices.Equal(got, tc.want) {
				t.Errorf("got %v, %v; want %v (error %v)", got, err, tc.want, tc.bad)
			}
			if err != nil && !isUsageFor(err, "-size_small") {
				t.Errorf("error %v does not name -size_small", err)
			}
		})
	}
}

func FuzzParseSizeList(f *testing.F) {
	for _, s := range []string{"8", "1,2,4,8", "0", "4,,4", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSizeList("-size_small", s)
		if err != nil {
			return
		}
		for _, n := range got {
			if n < 1 || n > 1<<20 {
				t.Fatalf("%q gave %d", s, n)
			}
		}
	})
}

func TestReadLUNs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.img")
	if err := os.WriteFile(data, make([]byte, 8192), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.img")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, lun string // lun "-": no .lun file
		want      []LUN
	}{
		{"one LUN, blank lines", "\n" + data + "\r\n\n", []LUN{{data, 8192}}},
		{"two LUNs", data + "\n" + data + "\n", []LUN{{data, 8192}, {data, 8192}}},
		{"missing .lun", "-", nil},
		{"empty .lun", "", nil},
		{"only blank lines", "\n \n", nil},
		{"LUN does not exist", filepath.Join(dir, "nope") + "\n", nil},
		{"LUN is a directory", dir + "\n", nil},
		{"LUN is empty", empty + "\n", nil},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(dir, "t"+string(rune('a'+i)))
			if tc.lun != "-" {
				if err := os.WriteFile(name+".lun", []byte(tc.lun), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadLUNs(context.Background(), name)
			if tc.want == nil {
				if !isUsageFor(err, "-testname") {
					t.Fatalf("err %v, want a usage error naming -testname", err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// A refused test creates nothing: a bad -output-dir, a LUN that is missing,
// or a write without --destroy-data on the existing LUN.
func TestRefusedTestsCreateNothing(t *testing.T) {
	dir := t.TempDir()
	goldenLUN(t, dir, "t")
	before, _ := os.ReadDir(dir)
	cases := []struct {
		name string
		edit func(*Options)
		flag string
	}{
		{"output dir missing", func(o *Options) { o.OutputDir = filepath.Join(dir, "none") }, "-output-dir"},
		{"output dir is a file", func(o *Options) { o.OutputDir = filepath.Join(dir, "t.lun") }, "-output-dir"},
		{"no such test", func(o *Options) { o.TestName = filepath.Join(dir, "other") }, "-testname"},
		{"streams do not fit", func(o *Options) {
			o.Run, o.Matrix, o.Type, o.NumLarge, o.SizeLarge = RunAdvanced, MatrixPoint, "seq", 300, 1024
		}, "-num_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions(RunSimple)
			o.TestName, o.OutputDir, o.Duration = filepath.Join(dir, "t"), dir, time.Second
			tc.edit(&o)
			tt, err := Prepare(o)
			if tt != nil || !isUsageFor(err, tc.flag) {
				t.Fatalf("err %v, want a usage error naming %s", err, tc.flag)
			}
		})
	}
	// A write is refused before anything runs, and with --destroy-data the
	// block engine's own rules still apply (tested in blockbench).
	o := DefaultOptions(RunSimple)
	o.TestName, o.OutputDir, o.Duration, o.Write = filepath.Join(dir, "t"), dir, time.Second, 10
	if tt, err := Prepare(o); tt != nil || !isUsageFor(err, "--destroy-data") {
		t.Fatalf("write without --destroy-data: %v, want a refusal naming --destroy-data", err)
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("refused runs left files: %v -> %v", before, after)
	}
}

func FuzzLUNLines(f *testing.F) {
	for _, s := range []string{"/dev/sdb\n/dev/sdc\n", "\r\n a \r\n\n", "", "x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		prev := 0
		for _, l := range lunLines(data) {
			if l.name == "" || strings.TrimSpace(l.name) != l.name || strings.Contains(l.name, "\n") {
				t.Fatalf("name %q", l.name)
			}
			if l.line <= prev {
				t.Fatalf("line %d after %d", l.line, prev)
			}
			prev = l.line
		}
	})
}

// TestValidateBounds is case 10 of issue 20: the sizes that crashed while
// planning, or overflowed the run time, are refused in one line.
func TestValidateBounds(t *testing.T) {
	tests := []struct {
		name string
		edit func(o *Options)
		flag string
	}{
		{"-num_disks 1000000000", func(o *Options) { o.NumDisks = 1_000_000_000 }, "-num_disks"},
		{"-num_disks 7000", func(o *Options) { o.NumDisks = 7000 }, "-num_disks"},
		{"-num_small", func(o *Options) {
			o.Run, o.Matrix, o.NumSmall, o.NumLarge = RunAdvanced, MatrixPoint, MaxOutstanding+1, 1
		}, "-num_small"},
		{"-num_large", func(o *Options) {
			o.Run, o.Matrix, o.NumSmall, o.NumLarge = RunAdvanced, MatrixPoint, 1, MaxOutstanding+1
		}, "-num_large"},
		{"-num_streamIO", func(o *Options) { o.NumStreamIO = MaxOutstanding + 1 }, "-num_streamIO"},
		{"-duration", func(o *Options) { o.Duration = blockbench.MaxRuntime + time.Second }, "-duration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions(RunSimple)
			o.TestName = "t"
			tc.edit(&o)
			if err := o.Validate(); !isUsageFor(err, tc.flag) {
				t.Fatalf("err = %v, want a usage error for %s", err, tc.flag)
			}
		})
	}
}
