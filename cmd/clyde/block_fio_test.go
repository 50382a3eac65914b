package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

func writeJobFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.fio")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func decodeBlock(t *testing.T, out string) result.Block {
	t.Helper()
	var res result.Block
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	return res
}

// TestBlockJobFile runs a job file with flags after it, as fio takes them.
func TestBlockJobFile(t *testing.T) {
	dir := t.TempDir()
	job := writeJobFile(t, "[global]\nfilename="+filepath.Join(dir, "f")+"\nsize=4m\nruntime=10\ntime_based\n"+
		"[reader]\nrw=randread\n[writer]\nstonewall\nrw=randwrite\nbs=8k\n")
	code, out, stderr := runClyde(t, "block", job, "--runtime", "100ms", "--output-format", "json", "--no-history")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res := decodeBlock(t, out)
	if len(res.Jobs) != 2 || res.Jobs[0].JobName != "reader" || res.Jobs[1].GroupID != 1 {
		t.Fatalf("jobs %+v", res.Jobs)
	}
	for _, j := range res.Jobs {
		if j.Config.RuntimeNs != 100e6 {
			t.Errorf("%s ran %d ns; the flag after the file says 100ms", j.JobName, j.Config.RuntimeNs)
		}
	}
	if res.Jobs[1].Options.Get("bs") != "8k" || res.GlobalOptions.Get("size") != "4m" {
		t.Errorf("job options %v, global options %v", res.Jobs[1].Options, res.GlobalOptions)
	}
	if _, err := os.Stat(filepath.Join(dir, "f")); err == nil {
		t.Error("the created file is still there")
	}
}

func TestBlockJobFileRefusals(t *testing.T) {
	good := writeJobFile(t, "[a]\nfilename="+filepath.Join(t.TempDir(), "f")+"\nsize=1m\n")
	cases := []struct {
		name string
		args func(t *testing.T) []string
		want string
	}{
		{"unsupported option", func(t *testing.T) []string {
			return []string{"block", writeJobFile(t, "[a]\nfilename=f\nsize=1m\nverify_async=2\n")}
		}, "job.fio:4: option verify_async"},
		{"malformed line", func(t *testing.T) []string { return []string{"block", writeJobFile(t, "[a\n")} }, "job.fio:1: malformed"},
		{"two job files", func(t *testing.T) []string { return []string{"block", good, good} }, "one job file"},
		{"missing job file", func(t *testing.T) []string {
			return []string{"block", filepath.Join(t.TempDir(), "none.fio")}
		}, "cannot read the job file"},
		{"preset with a job file", func(t *testing.T) []string { return []string{"block", good, "--profile", "cdm"} }, "--profile"},
		{"bad override", func(t *testing.T) []string { return []string{"block", good, "--rw", "randappend"} }, "--rw: rw=randappend"},
		{"a job file and --name", func(t *testing.T) []string { return []string{"block", good, "--name=a", "--rw=read"} }, "a job file and --name"},
		{"a preset on fio's command line", func(t *testing.T) []string {
			return []string{"block", "--name=a", "--filename=x", "--size=1m", "--profile", "cdm"}
		}, "--profile: does not go with fio's command line"},
		{"clyde's seed on fio's command line", func(t *testing.T) []string {
			return []string{"block", "--name=a", "--filename=x", "--size=1m", "--seed", "7"}
		}, "--randseed"},
		{"a bool without its value on fio's command line", func(t *testing.T) []string {
			return []string{"block", "--name=a", "--direct", "--rw=read"}
		}, "--direct: needs a value"},
		{"an option clyde does not run, on fio's command line", func(t *testing.T) []string {
			return []string{"block", "--name=a", "--filename=x", "--size=1m", "--numa_cpu_nodes=0"}
		}, "--numa_cpu_nodes: option numa_cpu_nodes is not one clyde block supports"},
		{"--section without jobs to pick", func(t *testing.T) []string {
			return []string{"block", "--filename=x", "--section=a"}
		}, "--section: goes with a job file"},
		{"an unknown --eta", func(t *testing.T) []string { return []string{"block", good, "--eta=sometimes"} }, "--eta"},
		{"a short --eta-interval", func(t *testing.T) []string { return []string{"block", good, "--eta-interval=100ms"} }, "--eta-interval"},
		{"no target", func(t *testing.T) []string { return []string{"block", "--rw", "read"} }, "--filename"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runClyde(t, tc.args(t)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, out, stderr, tc.want)
			}
		})
	}
}

// TestKDiskMark runs KDiskMark's fio invocation (src/helper.cpp) unchanged,
// as a command line and as a job file, and reads what KDiskMark reads:
// jobs[0].read|write bw, iops, clat_ns.mean.
func TestKDiskMark(t *testing.T) {
	target := filepath.Join(t.TempDir(), ".kdiskmark.tmp")
	args := []string{"block", "--output-format=json", "--ioengine=libaio", "--direct=1", "--randrepeat=0", "--refill_buffers",
		"--end_fsync=1", "--rwmixread=70", "--filename=" + target, "--name=randrw", "--size=8m", "--zero_buffers=0",
		"--bs=4k", "--runtime=1", "--rw=randrw", "--iodepth=8", "--numjobs=1", "--group_reporting", "--no-history"}
	job := writeJobFile(t, "[global]\nioengine=libaio\ndirect=1\nrandrepeat=0\nrefill_buffers\nend_fsync=1\nrwmixread=70\n"+
		"filename="+target+"\nsize=8m\nzero_buffers=0\ngroup_reporting\n[randrw]\nbs=4k\nruntime=1\nrw=randrw\niodepth=8\nnumjobs=1\n")
	for name, argv := range map[string][]string{"command line": args, "job file": {"block", job, "--output-format=json", "--no-history"}} {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := runClyde(t, argv...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			res := decodeBlock(t, out)
			j := res.Jobs[0]
			for dir, d := range map[string]result.BlockDir{"read": j.Read, "write": j.Write} {
				if d.BW <= 0 || d.IOPS <= 0 || d.Clat.Mean <= 0 {
					t.Errorf("%s: bw %d, iops %g, clat_ns.mean %g: KDiskMark would show nothing", dir, d.BW, d.IOPS, d.Clat.Mean)
				}
			}
			// fio 3.33 issues end_fsync outside its sync accounting: sync.total_ios 0.
			if !j.Config.Direct || !strings.Contains(j.Config.Buffer, "refill") || j.Sync.TotalIOs != 0 || !j.Config.EndFsync {
				t.Errorf("config %+v, syncs %d: want direct, refilled buffers and end_fsync, not counted in sync as fio", j.Config, j.Sync.TotalIOs)
			}
			// fio's echo says what was written (in the global options:
			// the line gives it before --name); config what ran.
			if res.GlobalOptions.Get("ioengine") != "libaio" {
				t.Errorf("global options %v: fio echoes ioengine=libaio there", res.GlobalOptions)
			}
			if blockbench.EngineAvailable(blockbench.EngineLibaio) == nil {
				if j.Config.IOEngine != "libaio" || strings.Contains(stderr, "libaio") {
					t.Errorf("ioengine %q, stderr %q: libaio runs as itself, without a note", j.Config.IOEngine, stderr)
				}
			} else if j.Config.IOEngine == "libaio" || !strings.Contains(stderr, "libaio") {
				t.Errorf("ioengine %q, stderr %q: libaio runs as another engine, said on stderr", j.Config.IOEngine, stderr)
			}
		})
	}
}

// TestBlockLogsAndFormats writes fio's logs through the CLI and fio's
// normal,json list of formats.
func TestBlockLogsAndFormats(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "run")
	code, out, stderr := runClyde(t, "block", "--filename", filepath.Join(dir, "f"), "--size", "4m", "--runtime", "300ms",
		"--write_bw_log="+prefix, "--write_lat_log="+prefix, "--log_avg_msec", "100", "--output-format", "normal,json", "--no-history")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	text, js, ok := strings.Cut(out, "{\n")
	if !ok || !strings.Contains(text, "read: IOPS=") {
		t.Fatalf("stdout is not the text report then the JSON:\n%s", out)
	}
	decodeBlock(t, "{\n"+js)
	for _, kind := range []string{"bw", "slat", "clat", "lat"} {
		data, err := os.ReadFile(prefix + "_" + kind + ".1.log")
		if err != nil {
			t.Fatal(err)
		}
		if kind != "slat" && strings.Count(string(data), "\n") != 3 {
			t.Errorf("%s log: %q, want 3 windows of 100 ms", kind, data)
		}
	}
	// A log that cannot be written refuses the run before anything exists.
	target := filepath.Join(dir, "g")
	code, _, stderr = runClyde(t, "block", "--filename", target, "--size", "4m", "--runtime", "100ms",
		"--write_iops_log="+filepath.Join(dir, "missing", "x"), "--no-history")
	if code != exitUsage || !strings.Contains(stderr, "--write_iops_log") {
		t.Fatalf("exit %d, %q; want a usage error naming --write_iops_log", code, stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the refused run created its target")
	}
}

// TestCheckBlockArgs: clyde block's flag list says which flags take the
// next word (fio's rules themselves are fiojob's TestNormalizeArgs), and
// other commands' arguments pass untouched.
func TestCheckBlockArgs(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"value flag keeps its word", []string{"clyde", "block", "job.fio", "--bs", "8k", "--direct"},
			[]string{"clyde", "block", "--bs", "8k", "--direct", "--", "job.fio"}},
		{"bool flag takes none", []string{"clyde", "block", "--direct", "job.fio"},
			[]string{"clyde", "block", "--direct", "--", "job.fio"}},
		{"bare log flag", []string{"clyde", "block", "job.fio", "--write_iops_log"},
			[]string{"clyde", "block", "--write_iops_log=", "--", "job.fio"}},
		{"another command", []string{"clyde", "fs", "x", "--write_lat_log"}, []string{"clyde", "fs", "x", "--write_lat_log"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := checkBlockArgs(c.args)
			if err != nil || strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("checkBlockArgs(%q) = %q, %v; want %q", c.args, got, err, c.want)
			}
		})
	}
}

// TestBlockFlagUnits: the size flags read units as fio's command line
// does, under --kb_base.
func TestBlockFlagUnits(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		kb, size string
		want     int64
	}{{"1024", "1MiB", 999424}, {"1000", "1MiB", 1 << 20}, {"1024", "0x40000", 1 << 18}} {
		code, out, stderr := runClyde(t, "block", "--filename", filepath.Join(dir, "f"), "--rw", "write", "--size", c.size,
			"--kb_base", c.kb, "--time_based=false", "--runtime", "0", "--output-format", "json", "--no-history")
		if code != 0 {
			t.Fatalf("--size %s --kb_base %s: exit %d: %s", c.size, c.kb, code, stderr)
		}
		res := decodeBlock(t, out)
		if got := res.Jobs[0].Write.IOBytes; got != c.want {
			t.Errorf("--size %s --kb_base %s wrote %d bytes, fio %d", c.size, c.kb, got, c.want)
		}
	}
}

// TestBlockFioCommandLine: clyde block with fio's command line does what
// fio does with the same words: fio's defaults (one pass over --size, as
// many I/Os as fio), fio's job options and no global options; without
// --name, one note names clyde's own defaults that are not fio's.
func TestBlockFioCommandLine(t *testing.T) {
	dir := t.TempDir()
	words := []string{"--name=x", "--rw=randread", "--bs=4k", "--size=16m", "--filename=" + filepath.Join(dir, "f")}
	code, out, stderr := runClyde(t, append(append([]string{"block"}, words...), "--output-format=json", "--no-history")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res := decodeBlock(t, out)
	j := res.Jobs[0]
	if len(res.Jobs) != 1 || j.JobName != "x" || j.Read.TotalIOs != 4096 || j.Config.TimeBased || j.Config.IOEngine != "psync" {
		t.Fatalf("jobs %d, %q: %d reads, time_based %v, %s; fio reads 16m once: 4096 reads with psync", len(res.Jobs), j.JobName, j.Read.TotalIOs, j.Config.TimeBased, j.Config.IOEngine)
	}
	if len(res.GlobalOptions) != 0 || strings.Contains(out, `"global options"`) {
		t.Errorf("global options %v; fio writes none for this line", res.GlobalOptions)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "clyde's own command line") {
			t.Errorf("fio's command line carries clyde's own note: %q", n)
		}
	}
	want := `{"name":"x","rw":"randread","bs":"4k","size":"16m","filename":"` + filepath.Join(dir, "f") + `"}`
	if fio, err := exec.LookPath("fio"); err == nil {
		// fio itself is the oracle where it is installed (CI installs it).
		cmd := exec.Command(fio, append(words, "--output-format=json", "--eta=never")...)
		fout, err := cmd.Output()
		if err != nil {
			t.Fatalf("fio: %v", err)
		}
		var fres struct {
			Jobs []struct {
				Options json.RawMessage `json:"job options"`
				Read    struct {
					TotalIOs int64 `json:"total_ios"`
				} `json:"read"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal(fout[strings.IndexByte(string(fout), '{'):], &fres); err != nil {
			t.Fatal(err)
		}
		var o result.Options
		if err := json.Unmarshal(fres.Jobs[0].Options, &o); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(o)
		want = string(b)
		if fres.Jobs[0].Read.TotalIOs != j.Read.TotalIOs {
			t.Errorf("fio did %d reads, clyde %d", fres.Jobs[0].Read.TotalIOs, j.Read.TotalIOs)
		}
	}
	if got, _ := json.Marshal(j.Options); string(got) != want {
		t.Errorf("job options %s, fio's %s", got, want)
	}

	// clyde's own line: its defaults are named in one note, in the JSON
	// and the text report.
	code, out, stderr = runClyde(t, "block", "--rw=randread", "--size=1m", "--runtime=100ms", "--iodepth=4", "--filename="+filepath.Join(dir, "g"), "--output-format=normal,json", "--no-history")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	text, js, _ := strings.Cut(out, "{\n")
	res = decodeBlock(t, "{\n"+js)
	var note string
	for _, n := range res.Notes {
		if strings.Contains(n, "clyde's own command line") {
			note = n
		}
	}
	for _, want := range []string{"time_based=1", "ioengine=auto", "invalidate=0", "--name"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q does not name %s", note, want)
		}
	}
	for _, given := range []string{"runtime=", "size: "} {
		if strings.Contains(note, given) {
			t.Errorf("note %q names %s, which the line gave", note, given)
		}
	}
	if !strings.Contains(text, note) {
		t.Errorf("the text report lacks the note:\n%s", text)
	}
}

// TestBlockSectionAndEta: fio's --section picks a job file's jobs and a
// fio command line's; --eta always draws the progress line on stderr
// even when it is no terminal, never draws none.
func TestBlockSectionAndEta(t *testing.T) {
	dir := t.TempDir()
	job := writeJobFile(t, "[global]\nsize=256k\nrw=write\n[a]\nfilename="+filepath.Join(dir, "a")+"\n[b]\nfilename="+filepath.Join(dir, "b")+"\n")
	for _, c := range []struct {
		name  string
		args  []string
		jobs  string
		drawn bool
	}{
		{"a job file's section", []string{job, "--section", "b", "--eta=always"}, "b", true},
		{"two sections", []string{job, "--section=b", "--section=a", "--eta=never"}, "a b", false},
		{"fio's command line", []string{"--section=y", "--name=x", "--size=256k", "--filename=" + filepath.Join(dir, "x"), "--name=y", "--size=256k", "--filename=" + filepath.Join(dir, "y")}, "y", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runClyde(t, append(append([]string{"block"}, c.args...), "--output-format=json", "--no-history")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var names []string
			for _, j := range decodeBlock(t, out).Jobs {
				names = append(names, j.JobName)
			}
			if got := strings.Join(names, " "); got != c.jobs {
				t.Errorf("jobs %q, want %q", got, c.jobs)
			}
			if drawn := strings.Contains(stderr, "ETA "); drawn != c.drawn {
				t.Errorf("progress line drawn %v, want %v: %q", drawn, c.drawn, stderr)
			}
		})
	}
}

// TestBlockFioCommandLineSizes: fio's block-size options on fio's command
// line (--bssplit, --bs with a size per direction, --blockalign) are the
// job's, as in a job file: the JSON says each direction's sizes as they
// ran and echoes the options as typed; without --name clyde's --bs is its
// own (one job per size) and --bssplit no flag of clyde's.
func TestBlockFioCommandLineSizes(t *testing.T) {
	code, out, stderr := runClyde(t, "block", "--name=x", "--ioengine=null", "--size=16m", "--rw=randrw", "--bs=,8k", "--bssplit=4k/50:8k/",
		"--output-format=json", "--no-history")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res := decodeBlock(t, out)
	j := res.Jobs[0]
	s := j.Config.BlockSizes
	if s == nil || s.Read.MinBytes != 4096 || s.Read.MaxBytes != 8192 || len(s.Read.Split) != 2 || s.Write.MinBytes != 4096 {
		t.Fatalf("block_sizes %+v: want reads and writes split 4k/8k (bssplit wins over bs= after the fact, as fio's)", s)
	}
	if j.Options.Get("bssplit") != "4k/50:8k/" || j.Options.Get("bs") != ",8k" {
		t.Errorf("job options %v: want the options as typed", j.Options)
	}
	if j.Read.TotalIOs == 0 || j.Write.TotalIOs == 0 || j.Read.IOBytes+j.Write.IOBytes != 16<<20 {
		t.Errorf("read %d bytes, wrote %d: want 16m between them (the random map)", j.Read.IOBytes, j.Write.IOBytes)
	}
	if code, _, stderr := runClyde(t, "block", "--ioengine=null", "--size=16m", "--bssplit=4k/50:8k/", "--no-history"); code != 2 || !strings.Contains(stderr, "bssplit") {
		t.Errorf("clyde's own command line with --bssplit: exit %d, %q; want a usage error (fio's options need --name)", code, stderr)
	}
}
