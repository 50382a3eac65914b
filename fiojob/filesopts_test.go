package fiojob

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// TestFileSizeDrawsAsFio checks filesize ranges against the sizes fio 3.33
// laid out for the same job file (create_only=1, bs=4k, default seeds):
// [a] nrfiles=5 filesize=8k-64k, [c] nrfiles=2 filesize=16k,4m, [d]
// nrfiles=3 filesize=1m-4m, jobs 1, 2 and 3.
func TestFileSizeDrawsAsFio(t *testing.T) {
	for _, tc := range []struct {
		value  string
		thread int
		want   []int64
	}{
		{"8k-64k", 1, []int64{16384, 24576, 24576, 57344, 49152}},
		{"16k,4m", 2, []int64{1196032, 3637248}},
		{"1m-4m", 3, []int64{2985984, 2854912, 3977216}},
	} {
		t.Run(tc.value, func(t *testing.T) {
			j := newJob(Section{Name: "x"}, Options{})
			if err := j.apply(Option{Name: "filesize", Value: tc.value, HasValue: true}); err != nil {
				t.Fatal(err)
			}
			got := j.fileSizeDraws(len(tc.want), tc.thread, 4096)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("draws %v, fio laid out %v", got, tc.want)
			}
		})
	}
}

// TestSplitFilenames is fio 3.33's str_filename_cb and get_next_str, the
// names checked against the files fio 3.33 created for the same values.
func TestSplitFilenames(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"a", []string{"a"}},
		{"a:b:c", []string{"a", "b", "c"}},
		{`a\:b:c`, []string{"a:b", "c"}},
		{`a\\:b`, []string{`a\:b`}}, // one '\' dropped, the colon kept
		{`\:x::y:`, []string{":x", "y"}},
		{":a", []string{"a"}},
		{"a::b", []string{"a", "b"}},
		{"a:", []string{"a"}},
		{":", nil},
		{"  sp1 : sp2  ", []string{"sp1 ", " sp2"}},
		{"/dev/sdb:/dev/sdc", []string{"/dev/sdb", "/dev/sdc"}},
	} {
		t.Run(tc.value, func(t *testing.T) {
			if got := splitFilenames(tc.value); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}

// TestMakeFilename is fio 3.33's make_filename, checked against the files
// fio created for these formats.
func TestMakeFilename(t *testing.T) {
	for _, tc := range []struct {
		format, job string
		num, file   int
		want        string
	}{
		{"", "job", 2, 3, "job.2.3"},
		{"$jobname.$jobnum.$filenum", "job", 0, 1, "job.0.1"},
		{"$jobname.$jobnum", "job1", 0, 0, "job1.0"},
		{"f.$JOBNAME.$filenum", "jobtwo", 0, 1, "f.jobtwo.1"},
		{"x$jobnum", "j3", 0, 0, "x0"},
		{"$clientuid-$jobname", "j4", 0, 0, "-j4"},
		{"$jobname$jobnumber.$JobName", "d", 0, 0, "d0ber.d"},
		{"$filenum-$filenum", "j", 0, 7, "7-7"},
		{"$jobname", "a$filenum", 0, 5, "a5"}, // each keyword's pass sees what the one before wrote
		{"$jobname", "$jobname", 0, 0, ""},    // fio expands for ever; clyde stops
		{"$jobname", "$jobname$jobname", 0, 0, ""},
	} {
		t.Run(tc.format, func(t *testing.T) {
			got := makeFilename(tc.format, tc.job, tc.num, tc.file)
			if strings.HasPrefix(tc.job, "$jobname") {
				if indexFold(got, "$jobname") < 0 || len(got) >= pathMax {
					t.Errorf("%d bytes: a job named %s expands for ever in fio; clyde stops within fio's PATH_MAX, the keyword left", len(got), tc.job)
				}
				return
			}
			if got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseFileSize(t *testing.T) {
	for _, tc := range []struct {
		value     string
		low, high int64
		err       bool
	}{
		{"64k", 64 << 10, 64 << 10, false},
		{"1m-4m", 1 << 20, 4 << 20, false},
		{"1m:4m", 1 << 20, 4 << 20, false},
		{"16k,4m", 16 << 10, 4 << 20, false},
		{"8k-64k,128k", 8 << 10, 128 << 10, false}, // fio: the first value's unit ends at the '-', the last value is the high end
		{"0x1000-0x2000", 4096, 8192, false},
		{"1m-", 0, 0, true},
		{"big", 0, 0, true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			low, high, err := parseFileSize(tc.value, KBBase1024)
			if (err != nil) != tc.err || low != tc.low || high != tc.high {
				t.Errorf("%d %d %v, want %d %d (error %v)", low, high, err, tc.low, tc.high, tc.err)
			}
		})
	}
}

func TestParseFileService(t *testing.T) {
	zipf := func(theta float64) blockbench.Distribution {
		return blockbench.Distribution{Kind: blockbench.DistZipf, Param: theta}
	}
	for _, tc := range []struct {
		value string
		want  blockbench.FileService
		err   string
	}{
		{"roundrobin", blockbench.FileService{Kind: blockbench.ServiceRoundRobin, Run: 1}, ""},
		{"random:4", blockbench.FileService{Kind: blockbench.ServiceRandom, Run: 4}, ""},
		{"sequential", blockbench.FileService{Kind: blockbench.ServiceSequential, Run: 1}, ""},
		{"roundrobin:0", blockbench.FileService{Kind: blockbench.ServiceRoundRobin, Run: 1 << 32}, ""}, // fio's unsigned 0 - 1
		{"random:", blockbench.FileService{Kind: blockbench.ServiceRandom, Run: 1 << 32}, ""},
		{"random:x", blockbench.FileService{Kind: blockbench.ServiceRandom, Run: 1 << 32}, ""}, // atoi: 0
		{"roundrobin:3x", blockbench.FileService{Kind: blockbench.ServiceRoundRobin, Run: 3}, ""},
		{"roundrobin,2", blockbench.FileService{Kind: blockbench.ServiceRoundRobin, Run: 1}, ""},
		{"zipf", blockbench.FileService{Kind: blockbench.ServiceRandom, Dist: zipf(1.1)}, ""},
		{"zipf:1.2", blockbench.FileService{Kind: blockbench.ServiceRandom, Dist: zipf(1.2)}, ""},
		{"zipf:1.2:0.5", blockbench.FileService{Kind: blockbench.ServiceRandom, Dist: blockbench.Distribution{Kind: blockbench.DistZipf, Param: 1.2, Center: 0.5, HasCenter: true}}, ""},
		{"pareto", blockbench.FileService{Kind: blockbench.ServiceRandom, Dist: blockbench.Distribution{Kind: blockbench.DistPareto, Param: 0.2}}, ""},
		{"gauss:10", blockbench.FileService{Kind: blockbench.ServiceRandom, Dist: blockbench.Distribution{Kind: blockbench.DistNormal, Param: 10}}, ""},
		{"zipf:1", blockbench.FileService{}, "different than 1.0"},
		{"zipf:", blockbench.FileService{}, "parsing failed"},
		{"pareto:1", blockbench.FileService{}, "out of range"},
		{"normal:100", blockbench.FileService{}, "out of range"},
		{"zipf:1.2:2", blockbench.FileService{}, "center"},
		{"rand", blockbench.FileService{}, "give random"},
		{"Random", blockbench.FileService{}, "give random"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			got, err := parseFileService(tc.value)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err %v, want one saying %q", err, tc.err)
				}
			case err != nil:
				t.Errorf("err %v", err)
			case fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tc.want):
				t.Errorf("%+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestFileSets compiles jobs of several files to fio's names and options.
func TestFileSets(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		check      func(t *testing.T, g []blockbench.Workload)
	}{
		{"global filename and the job's add up", "[global]\nfilename=ga:gb\nsize=16k\n[a]\nfilename=x:y\n[b]\n", func(t *testing.T, g []blockbench.Workload) {
			if n := fmt.Sprint(g[0].Files.Names); n != "[ga gb x y]" {
				t.Errorf("a: %s, want fio's [ga gb x y]", n)
			}
			if g[1].Files == nil || fmt.Sprint(g[1].Files.Names) != "[ga gb]" {
				t.Errorf("b: %+v", g[1])
			}
		}},
		{"one file stays a target", "[a]\nfilename=x\nsize=16k\nnrfiles=1\n", func(t *testing.T, g []blockbench.Workload) {
			if g[0].Files != nil || g[0].Filename != "x" {
				t.Errorf("%+v", g[0])
			}
		}},
		{"filesize makes one file a set", "[a]\nfilename=x\nfilesize=1m\n", func(t *testing.T, g []blockbench.Workload) {
			if g[0].Files == nil || g[0].Files.Size.Low != 1<<20 || g[0].Filename != "" {
				t.Errorf("%+v", g[0])
			}
		}},
		{"clones, directory and format", "[a]\ndirectory=/d\nnrfiles=2\nnumjobs=3\nsize=16k\nfilename_format=$jobname/$jobnum-$filenum\n", func(t *testing.T, g []blockbench.Workload) {
			var got []string
			for _, w := range g {
				got = append(got, w.Files.Names...)
			}
			if s := strings.Join(got, " "); s != "/d/a/0-0 /d/a/0-1 /d/a/2-0 /d/a/2-1 /d/a/1-0 /d/a/1-1" {
				t.Errorf("%s, want fio's clone numbers (0, then numjobs-1 down)", s)
			}
		}},
		{"clones draw their own sizes", "[a]\nnrfiles=2\nnumjobs=2\nfilesize=16k-1m\n", func(t *testing.T, g []blockbench.Workload) {
			d0, d1 := g[0].Files.Size.Draws, g[1].Files.Size.Draws
			if len(d0) != 2 || len(d1) != 2 || fmt.Sprint(d0) == fmt.Sprint(d1) {
				t.Errorf("draws %v and %v: want two each, the clones' own", d0, d1)
			}
		}},
		{"randrepeat=0 leaves the draws to clyde", "[a]\nnrfiles=2\nfilesize=16k-1m\nrandrepeat=0\n", func(t *testing.T, g []blockbench.Workload) {
			if g[0].Files.Size.Draws != nil {
				t.Errorf("draws %v from fio's fixed seeds", g[0].Files.Size.Draws)
			}
		}},
		{"null with filesize", "[a]\nioengine=null\nfilesize=1m\n", func(t *testing.T, g []blockbench.Workload) {
			if g[0].Files == nil || !g[0].Diskless() {
				t.Errorf("%+v", g[0])
			}
		}},
		{"service and openfiles", "[a]\nnrfiles=3\nsize=48k\nfile_service_type=random:2\nopenfiles=2\n", func(t *testing.T, g []blockbench.Workload) {
			fs := g[0].Files
			if fs.Service.Kind != blockbench.ServiceRandom || fs.Service.Run != 2 || fs.Open != 2 {
				t.Errorf("%+v", fs)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("job.fio", []byte(tc.text), Env{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compile(f, Options{Exists: func(string) bool { return false }})
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p.Groups[0])
		})
	}
}

// FuzzFileOptions: any value of the file options compiles to a file set
// blockbench takes the shape of, or is refused at its line; never a panic
// or a name fio would not make.
func FuzzFileOptions(f *testing.F) {
	for _, s := range []string{"filename=a:b", `filename=a\:b::c:`, "nrfiles=3", "filesize=1m-4m", "filesize=16k,64k",
		"filename_format=$jobname.$FILENUM.$clientuid", "file_service_type=zipf:1.2:0.5", "file_service_type=roundrobin:0",
		"openfiles=2", "filesize=4k:2k", "filename=:", "unique_filename=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, opt string) {
		if strings.ContainsAny(opt, "\n\r[;#\x00") {
			return
		}
		p, err := compile(t, "[a]\nsize=4m\nnrfiles=2\n"+opt+"\n", nil, nil, Options{Exists: func(string) bool { return false }})
		if err != nil {
			var ue *result.UsageError
			if !errorsAs(err, &ue) {
				t.Fatalf("%q: %v is not a usage error", opt, err)
			}
			return
		}
		w := p.Groups[0][0]
		if w.Files == nil {
			if w.Filename == "" {
				t.Fatalf("%q: neither a file nor a set", opt)
			}
			return
		}
		fs := w.Files
		if len(fs.Names) == 0 || fs.Size.High < fs.Size.Low || fs.Size.Low < 0 || fs.Open < 0 || fs.Service.Run < 0 {
			t.Fatalf("%q: %+v", opt, fs)
		}
		for _, n := range fs.Names {
			if n == "" {
				t.Fatalf("%q: an empty name in %q", opt, fs.Names)
			}
		}
	})
}

// TestPerJobLogs is fio's per_job_logs=0: logs named without the
// worker's number (gen_log_name), refused where two workers would write
// one file (fio appends them; clyde writes a log per worker).
func TestPerJobLogs(t *testing.T) {
	p, err := compile(t, "[global]\nsize=1m\nfilename=f\nper_job_logs=0\n[a]\nwrite_bw_log=pa\n[b]\nwrite_lat_log\n", nil, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(LogNames(p), " "); got != "pa_bw.log b_slat.log b_clat.log b_lat.log" {
		t.Errorf("logs %s, want fio's names without the job number", got)
	}
	for _, text := range []string{
		"[global]\nsize=1m\nfilename=f\nper_job_logs=0\nwrite_bw_log=same\n[a]\n[b]\n",
		"[a]\nsize=1m\nfilename=f\nper_job_logs=0\nwrite_iops_log\nnumjobs=2\n",
	} {
		if _, err := compile(t, text, nil, nil, Options{}); err == nil || !strings.Contains(err.Error(), "several workers would write") {
			t.Errorf("%q: err %v, want a refusal of one log for two workers", text, err)
		}
	}
}
