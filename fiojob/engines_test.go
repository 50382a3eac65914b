package fiojob

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// TestEngineNames maps fio's ioengine names as a job file and --ioengine
// give them: fio's null, mmap and posixaio run the engines of those names
// (refused with a usage error where they cannot run), fio's sync family
// runs psync with a note, anything else is refused.
func TestEngineNames(t *testing.T) {
	for _, c := range []struct {
		name string
		want blockbench.Engine
		note string // a substring of the note; "" none
	}{
		{"null", blockbench.EngineNull, ""},
		{"mmap", blockbench.EngineMmap, ""},
		{"posixaio", blockbench.EnginePosixAIO, ""},
		{"psync", blockbench.EnginePsync, ""},
		{"pvsync2", blockbench.EnginePsync, "ran psync"},
		{"solarisaio", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, note, err := Engine("--ioengine", c.name)
			if c.want == "" {
				if !result.IsUsage(err) || !strings.Contains(err.Error(), "posixaio") {
					t.Errorf("err = %v, want a usage error listing the engines", err)
				}
				return
			}
			if avail := blockbench.EngineAvailable(c.want); avail != nil {
				if !result.IsUsage(err) {
					t.Errorf("%s is not available here (%v), err = %v: want a usage error", c.name, avail, err)
				}
				return
			}
			if err != nil || e != c.want || !strings.Contains(note, c.note) || (c.note == "" && note != "") {
				t.Errorf("Engine(%q) = %q, %q, %v; want %q with note %q", c.name, e, note, err, c.want, c.note)
			}
		})
	}
}

// TestCompileNull: fio's null opens no file, so a null job keeps no
// filename of fio's naming (JOB.0.0) and needs size=; numjobs clones stay
// diskless.
func TestCompileNull(t *testing.T) {
	for _, c := range []struct {
		name, text string
		refused    string // a substring of the refusal; "" runs
	}{
		{"no filename", "[n]\nioengine=null\nsize=1m\nnumjobs=2\n", ""},
		{"a filename is not opened", "[n]\nioengine=null\nfilename=/no/such/dir/f\nsize=1m\n", ""},
		{"no size", "[n]\nioengine=null\n", "size="},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse("job.fio", []byte(c.text), Env{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compile(f, Options{Exists: func(string) bool { return false }})
			if c.refused != "" {
				if !result.IsUsage(err) || !strings.Contains(err.Error(), c.refused) {
					t.Errorf("err = %v, want a refusal naming %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range p.Groups[0] {
				if !w.Diskless() || strings.HasPrefix(filepath.Base(w.Filename), "n.") {
					t.Errorf("workload %s: diskless %v, filename %q: want null with no file of fio's naming", w.Name, w.Diskless(), w.Filename)
				}
			}
		})
	}
}

// TestNullExampleRuns runs fio's examples/null.fio (its size cut to 64m)
// as clyde block FILE does, from an empty directory: it runs, and leaves
// the directory empty.
func TestNullExampleRuns(t *testing.T) {
	dir := t.TempDir()
	text := "[global]\nbs=4k\ngtod_reduce=1\n\n[null]\nioengine=null\nsize=64m\nrw=randread\nnorandommap\n"
	v, res := clydeInDir(t, dir, text, nil)
	if len(v.jobs) != 1 || v.jobs[0].Read.IOBytes != 64<<20 {
		t.Fatalf("jobs %+v: want one job reading 64 MiB", v.jobs)
	}
	if res.Target.Kind != "null" {
		t.Errorf("target %+v, want null", res.Target)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the run left %v", ents)
	}
}
