package fiojob

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// env is a job file's environment in tests: a fixed set of variables and
// files from a map (falling back to the disk for testdata).
func env(vars map[string]string, files map[string]string) Env {
	return Env{
		Getenv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		ReadFile: func(p string) ([]byte, error) {
			if s, ok := files[p]; ok {
				return []byte(s), nil
			}
			return Env{}.readFile(p)
		},
	}
}

func noFiles(string) bool { return false }

// compile parses and compiles text as job file "job.fio".
func compile(t *testing.T, text string, vars map[string]string, files map[string]string, o Options) (blockbench.Plan, error) {
	t.Helper()
	if o.Exists == nil {
		o.Exists = noFiles
	}
	f, err := Parse("job.fio", []byte(text), env(vars, files))
	if err != nil {
		return blockbench.Plan{}, err
	}
	return Compile(f, o)
}

// planView is what the golden records of a plan: its groups as they run.
type planView struct {
	Groups        []blockbench.Group
	GlobalOptions result.Options
	SizeGiven     bool
	Notes         []string
}

func TestPlanGolden(t *testing.T) {
	p, err := Load("testdata/stonewall.fio", env(map[string]string{"TARGET": "/srv/test/clyde.tmp"}, nil), Options{Exists: noFiles})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(planView{p.Groups, p.GlobalOptions, p.SizeGiven, p.Notes}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const golden = "testdata/stonewall.plan.json"
	if !blockbench.CanAdviseAccess {
		clydetest.Skip(t, "the golden has fadvise_hint on, fio's default where posix_fadvise exists (Linux)")
	}
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./fiojob -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the plan differs from %s; rerun with -update if intended:\n%s", golden, got)
	}
	// fio's rules, stated apart from the golden: the stonewall starts the
	// second group, the job after it runs beside it, [global] reaches all.
	if len(p.Groups) != 2 || len(p.Groups[0]) != 1 || len(p.Groups[1]) != 2 {
		t.Fatalf("groups %v, want [seq-read] then [rand-write rand-read]", groupNames(p))
	}
	for _, g := range p.Groups {
		for _, w := range g {
			if w.Filename != "/srv/test/clyde.tmp" || w.Size != 8<<20 || w.Runtime != 200*time.Millisecond || !w.TimeBased {
				t.Errorf("%s: [global] not applied: %+v", w.Name, w)
			}
		}
	}
}

func groupNames(p blockbench.Plan) [][]string {
	var out [][]string
	for _, g := range p.Groups {
		var names []string
		for _, w := range g {
			names = append(names, w.Name)
		}
		out = append(out, names)
	}
	return out
}

func TestCompile(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		vars  map[string]string
		check func(t *testing.T, p blockbench.Plan)
	}{
		{"fio's defaults", "[j]\nfilename=f\nsize=1m\n", nil, func(t *testing.T, p blockbench.Plan) {
			w := p.Groups[0][0]
			if w.RW != blockbench.Read || w.BS != 4096 || w.IODepth != 1 || w.NumJobs != 1 || w.IOEngine != blockbench.EnginePsync ||
				w.Direct || w.TimeBased || w.Runtime != 0 || !w.Invalidate || w.Buffer.Refill {
				t.Errorf("defaults %+v, want fio's", w)
			}
		}},
		{"directory= with .. after a symlink is not cleaned lexically", "[j]\ndirectory=data/link/..\nfilename=f\nsize=1m\n", nil, func(t *testing.T, p blockbench.Plan) {
			// fio (and the path rule) resolve link/.. through link's target;
			// filepath.Join would make it data/f.
			if got, want := p.Groups[0][0].Filename, filepath.FromSlash("data/link/../f"); got != want {
				t.Errorf("filename %q, want %q", got, want)
			}
		}},
		{"later global reaches later jobs only", "[global]\nfilename=f\nsize=1m\n[a]\n[global]\nbs=8k\n[b]\n", nil, func(t *testing.T, p blockbench.Plan) {
			if p.Groups[0][0].BS != 4096 || p.Groups[0][1].BS != 8192 {
				t.Errorf("bs %d, %d; want 4096, 8192", p.Groups[0][0].BS, p.Groups[0][1].BS)
			}
		}},
		{"a section named global-anything is global, as in fio", "[global-foo]\nfilename=f\nsize=1m\n[globalx]\nbs=8k\n[a]\n[global2]\nbs=16k\n[b]\n", nil, func(t *testing.T, p blockbench.Plan) {
			// fio: strncmp(name, "global", 6) in parse_jobs_ini.
			if n := len(p.Groups[0]); n != 2 || p.Groups[0][0].Name != "a" || p.Groups[0][1].Name != "b" {
				t.Fatalf("%d jobs (%v), want a and b only", n, p.Groups[0])
			}
			if p.Groups[0][0].BS != 8192 || p.Groups[0][1].BS != 16384 || p.Groups[0][1].Size != 1<<20 {
				t.Errorf("bs %d, %d, size %d; want 8k, 16k and the [global-foo] size", p.Groups[0][0].BS, p.Groups[0][1].BS, p.Groups[0][1].Size)
			}
		}},
		{"job options override global", "[global]\nfilename=f\nsize=1m\nbs=8k\n[a]\nbs=16k\n", nil, func(t *testing.T, p blockbench.Plan) {
			if p.Groups[0][0].BS != 16384 {
				t.Errorf("bs %d, want 16k", p.Groups[0][0].BS)
			}
		}},
		{"env and keywords", "[j]\nfilename=${DIR}/f\nsize=${SIZE}\nnumjobs=$ncpus\n", map[string]string{"DIR": "/d", "SIZE": "2m"}, func(t *testing.T, p blockbench.Plan) {
			w := p.Groups[0][0]
			if w.Filename != "/d/f" || w.Size != 2<<20 || w.NumJobs < 1 {
				t.Errorf("%q %d %d", w.Filename, w.Size, w.NumJobs)
			}
		}},
		{"directory and default file name", "[jobx]\ndirectory=/mnt/ssd\nsize=1m\n", nil, func(t *testing.T, p blockbench.Plan) {
			if w := p.Groups[0][0]; w.Filename != "/mnt/ssd/jobx.0.0" {
				t.Errorf("filename %q, want fio's NAME.0.0 in directory=", w.Filename)
			}
		}},
		{"aliases and mixes", "[j]\nfilename=f\nsize=1m\nreadwrite=randrw\nrwmixwrite=30\nblocksize=64k\ntimeout=2\nbuffered=0\n", nil, func(t *testing.T, p blockbench.Plan) {
			w := p.Groups[0][0]
			if w.RW != blockbench.RandRW || w.RWMixRead != 70 || w.BS != 65536 || w.Runtime != 2*time.Second || !w.Direct {
				t.Errorf("%+v", w)
			}
		}},
		{"data options", "[z]\nfilename=f\nsize=1m\nzero_buffers\n[c]\nfilename=f\nsize=1m\nbuffer_compress_percentage=60\n[r]\nfilename=f\nsize=1m\nrefill_buffers=1\n", nil, func(t *testing.T, p blockbench.Plan) {
			g := p.Groups[0]
			if g[0].Buffer.Kind != blockbench.BufferZero || g[1].Buffer.Kind != blockbench.BufferCompressible || g[1].Buffer.CompressPct != 60 ||
				!g[1].Buffer.Refill || !g[2].Buffer.Refill || g[2].Buffer.Kind != blockbench.BufferRandom {
				t.Errorf("%+v %+v %+v", g[0].Buffer, g[1].Buffer, g[2].Buffer)
			}
		}},
		{"engines", "[a]\nfilename=f\nsize=1m\nioengine=libaio\ndirect=1\n[b]\nfilename=f\nsize=1m\nioengine=sync\n[c]\nfilename=f\nsize=1m\nioengine=libaio\niodepth=8\n", nil, func(t *testing.T, p blockbench.Plan) {
			g := p.Groups[0]
			if blockbench.EngineAvailable(blockbench.EngineLibaio) == nil {
				// libaio runs as itself, buffered too, without a note.
				if g[0].IOEngine != blockbench.EngineLibaio || g[1].IOEngine != blockbench.EnginePsync || g[2].IOEngine != blockbench.EngineLibaio ||
					len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "ioengine sync") {
					t.Errorf("%s %s %s %q", g[0].IOEngine, g[1].IOEngine, g[2].IOEngine, p.Notes)
				}
				return
			}
			if q, ok := blockbench.QueueingEngine(); !ok || g[0].IOEngine != q || g[1].IOEngine != blockbench.EnginePsync || len(p.Notes) != 3 {
				t.Errorf("%s %s %q", g[0].IOEngine, g[1].IOEngine, p.Notes)
			}
			// Without libaio, buffered libaio, synchronous in the kernel, runs psync, said so.
			if g[2].IOEngine != blockbench.EnginePsync || !strings.Contains(p.Notes[2], "buffered libaio is synchronous") {
				t.Errorf("buffered libaio ran %s, notes %q", g[2].IOEngine, p.Notes)
			}
		}},
		{"logs default to the job name", "[lj]\nfilename=f\nsize=1m\nwrite_bw_log\nwrite_lat_log=lat\nlog_avg_msec=500\n", nil, func(t *testing.T, p blockbench.Plan) {
			l, _ := p.Groups[0][0].Log.(LogSpec)
			if l.BW != "lj" || l.Lat != "lat" || l.IOPS != "" || l.AvgMsec != 500 {
				t.Errorf("%+v", l)
			}
		}},
		{"new_group", "[global]\nfilename=f\nsize=1m\n[a]\n[b]\nnew_group\n", nil, func(t *testing.T, p blockbench.Plan) {
			if len(p.Groups) != 1 || !p.Groups[0][1].NewGroup {
				t.Errorf("new_group runs beside, in a group of its own: %v", groupNames(p))
			}
		}},
		{"global options echo values only", "[global]\nfilename=f\nsize=1m\ntime_based\nruntime=1\n[a]\n", nil, func(t *testing.T, p blockbench.Plan) {
			if _, ok := p.GlobalOptions.Lookup("time_based"); ok || p.GlobalOptions.Get("runtime") != "1" || p.GlobalOptions.Get("filename") != "f" {
				t.Errorf("%v", p.GlobalOptions)
			}
		}},
		{"include", "[global]\ninclude common.fio\n[a]\n", nil, func(t *testing.T, p blockbench.Plan) {
			if w := p.Groups[0][0]; w.Filename != "inc" || w.BS != 8192 {
				t.Errorf("%+v", w)
			}
		}},
		{"comments, blanks and CRLF", "; c\r\n# c\r\n\r\n[a]\r\n  filename = f \r\nsize=1m\r\n", nil, func(t *testing.T, p blockbench.Plan) {
			if w := p.Groups[0][0]; w.Filename != "f" {
				t.Errorf("%q", w.Filename)
			}
		}},
	}
	files := map[string]string{"common.fio": "filename=inc\nsize=1m\nbs=8k\n"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compile(t, tc.text, tc.vars, files, Options{})
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p)
		})
	}
}

func TestOverrides(t *testing.T) {
	text := "[global]\nfilename=f\nsize=1m\nruntime=10\n[a]\nruntime=20\nbs=8k\n"
	p, err := compile(t, text, nil, nil, Options{Overrides: []Option{
		{Name: "runtime", Value: "1", HasValue: true, Pos: "--runtime"},
		{Name: "write_iops_log", Pos: "--write_iops_log"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w := p.Groups[0][0]
	if w.Runtime != time.Second || w.BS != 8192 || w.Log.(LogSpec).IOPS != "a" {
		t.Errorf("runtime %v bs %d log %+v; want the flag's 1s over the job's 20s, the job's bs, the log named a", w.Runtime, w.BS, w.Log)
	}
	_, err = compile(t, text, nil, nil, Options{Overrides: []Option{{Name: "rw", Value: "randappend", HasValue: true, Pos: "--rw"}}})
	if err == nil || !strings.HasPrefix(err.Error(), "--rw:") {
		t.Errorf("a bad override: %v, want an error naming --rw", err)
	}
}

// TestRefusals: every unsupported option and malformed line is refused
// with its file and line.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name, text, pos, msg string
	}{
		{"unknown option", "[a]\nfilename=f\nsize=1m\nnuma_cpu_nodes=0\n", "job.fio:4", "numa_cpu_nodes"},
		{"known unsupported option", "[a]\nfilename=f\nsize=1m\nverify_async=2\n", "job.fio:4", "worker's own thread"},
		{"create_only", "[a]\nfilename=f\nsize=1m\ncreate_only=1\n", "job.fio:4", "create_only"},
		{"option before a section", "bs=4k\n[a]\n", "job.fio:1", "before any section"},
		{"unclosed section", "[a\nbs=4k\n", "job.fio:1", "malformed section"},
		{"empty section name", "[ ]\n", "job.fio:1", "malformed section"},
		{"line without a name", "[a]\n=4k\n", "job.fio:2", "malformed line"},
		{"space in a name", "[a]\nblock size=4k\n", "job.fio:2", "malformed option name"},
		{"bad size", "[a]\nfilename=f\nsize=lots\n", "job.fio:3", "not a size"},
		{"percentage over 100", "[a]\nfilename=f\nsize=150%\n", "job.fio:3", "percentage from 0 to 100"},
		{"bad bool", "[a]\nfilename=f\nsize=1m\ndirect=yes\n", "job.fio:4", "give 0 or 1"},
		{"bad time", "[a]\nfilename=f\nsize=1m\nruntime=soon\n", "job.fio:4", "not a time"},
		{"unknown rw mode", "[a]\nfilename=f\nsize=1m\nrw=randappend\n", "job.fio:4", "accepted: read"},
		{"rw run of no I/O", "[a]\nfilename=f\nsize=1m\nrw=randread:0\n", "job.fio:4", "from 1"},
		{"a block size of 0", "[a]\nfilename=f\nsize=1m\nbs=0\n", "job.fio:4", "1 byte or more"},
		{"nrfiles below filename's names", "[global]\nfilename=a:b\n[a]\nnrfiles=1\nsize=1m\n", "job.fio:4", "fewer than the 2 files"},
		{"unknown engine", "[a]\nfilename=f\nsize=1m\nioengine=spdk\n", "job.fio:4", "unknown engine"},
		{"depth out of range", "[a]\nfilename=f\nsize=1m\niodepth=0\n", "job.fio:4", "from 1"},
		{"arithmetic", "[a]\nfilename=f\nsize=$mb_memory\n", "job.fio:3", "mb_memory"},
		{"stray dollar", "[a]\nfilename=$f\n", "job.fio:2", "a $ must start"},
		{"unclosed variable", "[a]\nfilename=${F\n", "job.fio:2", "closing }"},
		{"include loop", "[a]\ninclude job.fio\n", "job.fio", "include"},
		{"include with a section", "[a]\ninclude sec.fio\n", "sec.fio:1", "not sections"},
		{"include missing", "[a]\ninclude nothere.fio\n", "job.fio:2", "nothere.fio"},
		{"include outside a section", "include sec.fio\n", "job.fio:1", "before any section"},
		{"scramble without refill", "[a]\nfilename=f\nsize=1m\nscramble_buffers=1\n", "job.fio:4", "does not scramble"},
		{"no size for a new file", "[a]\nfilename=f\n", "job.fio:1", "no size="},
		{"no job", "[global]\nbs=4k\n", "job.fio", "no job section"},
		{"NUL byte", "[a]\x00\n", "job.fio", "NUL"},
	}
	files := map[string]string{"job.fio": "[a]\ninclude job.fio\n", "sec.fio": "[b]\n"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compile(t, tc.text, nil, files, Options{})
			var ue *result.UsageError
			if !errorsAs(err, &ue) {
				t.Fatalf("got %v, want a usage error", err)
			}
			if !strings.HasPrefix(ue.Flag, tc.pos) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %q (at %q), want one at %s saying %q", err, ue.Flag, tc.pos, tc.msg)
			}
		})
	}
}

func errorsAs(err error, target **result.UsageError) bool {
	u, ok := err.(*result.UsageError)
	if ok {
		*target = u
	}
	return ok
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"[global]\nbs=4k\n[a]\nfilename=f\nsize=1m\nrw=randrw\nrwmixread=70\n",
		"[a]\nfilename=${X}\nsize=$ncpus\n[b]\nstonewall\n",
		"[a]\ninclude x\n", "bs\n", "[", "[a]\n=\n", "[a]\nsize=1m\nbs=4k,4k\nruntime=1ms\n",
		// fio's syntax as its examples write it.
		"; comment\n[global]\nname=g ; inline\nsize=1MiB # too\nkb_base=1000\n[j] ; section\nfilename=a\\:b\niodepth=010\n",
		"[global]\ngroup_reporting\nsize=0x10000\n[a]\nnumjobs=4\nfilename_format=$jobname.$jobnum.$filenum\nloops=2\n[b]\nstonewall\nnorandommap\nrw=randwrite\n",
		"[globalx]\nunit_base=8\ndescription=a # b\n[c]\nfilename=f\nsize=64k\nioengine=libaio\ndirect=0\n",
		"[z]\nfilename=f\nsize=16m\nrw=randread\nrandom_distribution=zipf:1.2\n[p]\nrandom_distribution=pareto:0.9:0.5\n[n]\nrandom_distribution=normal:10\n",
		"[global]\nrw=randrw\nsize=8m\n[zoned]\nrandom_distribution=zoned:60/10:30/20:8/30:2/40,100/100\n[abs]\nrandom_distribution=zoned_abs:60/1m:40/7m\n",
		"[s]\nfilename=f\nsize=16m\nzonemode=strided\nzonesize=1m\nzonerange=4m\nzoneskip=4m\n[t]\nzonesize=1m\n",
		// fio's offset modifiers and sequencer.
		"[b]\nfilename=f\nsize=128m\nbs=4k\nrw=read:-8k\n[h]\nrw=write:112k\nkb_base=1000\n[r]\nrw=randread:8\nrw_sequencer=identical\n",
		"[m]\nfilename=f\nsize=1m\nrw=randrw:0x10\nrw_sequencer=sequential\n[t]\nrw=randtrimwrite:4\n[x]\nrw=rw:-\n",
		// issue 34's options: shares, increments, io_size, start delays,
		// minimum rates, reporting, patterns, the verify backlog.
		"[global]\nfilename=f\nsize=50%\noffset=10%\n[a]\noffset_increment=1m\nnumjobs=3\nio_size=4m\n[b]\nio_limit=25%\noffset_increment=5%\n",
		"[d]\nfilename=f\nsize=1m\nstartdelay=1s-3s\nnumjobs=2\nrandseed=7\n[e]\nstartdelay=500ms:2\nrandom_generator=tausworthe64\n[f]\nstartdelay=0x10,\n",
		"[r]\nfilename=f\nsize=1m\nrate=1m\nratemin=1k,2k\nrate_iops_min=3\nratecycle=250\nunified_rw_reporting=both\n[u]\nunified_rw_reporting=1\nio_submit_mode=offload\n",
		"[p]\nfilename=f\nsize=1m\nrw=write\nbuffer_pattern=\"ab\"0x01-5\nverify_pattern=%o0xdead\nverify_backlog=1k\nverify_backlog_batch=8\nverify_dump=1\n",
		"[o]\nfilename=f\nsize=1m\nthreads=1\nthread\ncpus_allowed_policy=split\nexperimental_verify=1\ncreate_on_open=1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e := Env{Getenv: func(string) (string, bool) { return "v", true },
			ReadFile: func(string) ([]byte, error) { return []byte("bs=4k\n"), nil }}
		file, err := Parse("job.fio", data, e)
		if err == nil {
			_, err = Compile(file, Options{Exists: noFiles})
		}
		if err == nil {
			return
		}
		var ue *result.UsageError
		if !errorsAs(err, &ue) {
			t.Fatalf("%v is not a usage error", err)
		}
		// A position names the job file and, for a line, one it has.
		if !strings.HasPrefix(ue.Flag, "job.fio") {
			t.Fatalf("error at %q, not in job.fio: %v", ue.Flag, err)
		}
		if _, line, ok := strings.Cut(ue.Flag, ":"); ok {
			n, perr := strconv.Atoi(line)
			if perr != nil || n < 1 || n > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("error at %q: not a line of the file: %v", ue.Flag, err)
			}
		}
	})
}

// TestRunsAsFio runs the stonewall job file for real, and with fio when it
// is here: the same jobs, in the same groups.
func TestRunsAsFio(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "clyde.tmp")
	p, err := Load("testdata/stonewall.fio", env(map[string]string{"TARGET": target}, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.CommandLine = []string{"clyde", "block", "stonewall.fio"}
	res, err := blockbench.RunPlan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	type job struct {
		Name  string
		Group int
	}
	var got []job
	for _, j := range res.Jobs {
		got = append(got, job{j.JobName, j.GroupID})
		if j.Read.TotalIOs+j.Write.TotalIOs == 0 {
			t.Errorf("%s did no I/O", j.JobName)
		}
	}
	want := []job{{"seq-read", 0}, {"rand-write", 1}, {"rand-read", 1}}
	if !sameJobs(got, want) {
		t.Fatalf("clyde ran %v, want %v", got, want)
	}
	if len(res.Groups) != 1 || res.Groups[0].GroupID != 1 || len(res.Groups[0].Jobs) != 2 {
		t.Errorf("groups %+v, want group 1 summing jobs 1 and 2", res.Groups)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("the file clyde created is still there")
	}
	fio, err := exec.LookPath("fio")
	if err != nil {
		clydetest.Skip(t, "fio is not here to compare with")
	}
	cmd := exec.Command(fio, "--output-format=json", "testdata/stonewall.fio")
	cmd.Env = append(os.Environ(), "TARGET="+filepath.Join(dir, "fio.tmp"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fio: %v", err)
	}
	// fio may print notes before its JSON (axboe/fio#731).
	var doc struct {
		Jobs []struct {
			Name  string `json:"jobname"`
			Group int    `json:"groupid"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out[bytes.IndexByte(out, '{'):], &doc); err != nil {
		t.Fatalf("fio's JSON: %v", err)
	}
	var fioJobs []job
	for _, j := range doc.Jobs {
		fioJobs = append(fioJobs, job{j.Name, j.Group})
	}
	if !sameJobs(fioJobs, want) {
		t.Errorf("fio ran %v, clyde %v", fioJobs, got)
	}
}

func sameJobs[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
