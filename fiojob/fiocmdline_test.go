package fiojob

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// cliFlags stands for clyde block's own flags in these tests: which the
// CLI knows and which take the next word.
func cliFlags(name string) (known, takesValue bool) {
	switch name {
	case "output-format", "output", "eta", "bs", "size", "rw", "filename":
		return true, true
	case "destroy-data", "direct", "time_based":
		return true, false
	}
	return false, false
}

func TestIsFioCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--name=x", "--rw=read"}, true},
		{[]string{"--rw", "read", "--name", "x"}, true},
		{[]string{"-name=x"}, true},
		{[]string{"--filename", "f", "--rw", "read"}, false},
		{[]string{"job.fio", "--runtime", "5"}, false},
		{[]string{"--", "--name=x"}, false},
		{[]string{"--filename", "name"}, false},
		{[]string{"--names=x"}, false},
		{nil, false},
	} {
		if got := IsFioCommandLine(c.args); got != c.want {
			t.Errorf("IsFioCommandLine(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// TestParseCommandLine reads command lines into the job files they stand
// for; the options each section holds, and their echo, are fio 3.33's
// (fio --output-format=json with the same words).
func TestParseCommandLine(t *testing.T) {
	for _, c := range []struct {
		name string
		args string
		// sections: "NAME{OPTIONS}" with OPTIONS as fio echoes them.
		sections string
		rest     string
		err      string
	}{
		{name: "the issue's line", args: "--name=x --rw=randread --bs=4k --size=16m --filename=f",
			sections: `x{"name":"x","rw":"randread","bs":"4k","size":"16m","filename":"f"}`},
		{name: "options before --name are global", args: "--bs=8k --name=x --rw=randread --size=1m --filename=f",
			sections: `global{"bs":"8k"} x{"name":"x","rw":"randread","size":"1m","filename":"f"}`},
		{name: "the next word is the value", args: "--name x --bs 8k --size 1m --direct 1",
			sections: `x{"name":"x","bs":"8k","size":"1m","direct":"1"}`},
		{name: "a switch takes no word; bare options echo nothing", args: "--name=x --time_based --stonewall --group_reporting --size=1m",
			sections: `x{"name":"x","size":"1m"}`},
		{name: "two jobs", args: "--name=a --size=64k --filename=s.dat --name=b --size=128k --filename=t.dat --stonewall",
			sections: `a{"name":"a","size":"64k","filename":"s.dat"} b{"name":"b","size":"128k","filename":"t.dat"}`},
		{name: "--name=global", args: "--name=global --bs=8k --name=x --size=64k",
			sections: `global{"name":"global","bs":"8k"} x{"name":"x","size":"64k"}`},
		{name: "--section skips a job; its options go global", args: "--section=b --name=a --rw=write --name=b --rw=read --size=64k",
			sections: `global{"rw":"write"} b{"name":"b","rw":"read","size":"64k"}`, rest: "--section=b"},
		{name: "typed order, kb_base after size", args: "--name=x --size=1MiB --kb_base=1000",
			sections: `x{"name":"x","size":"1MiB","kb_base":"1000"}`},
		{name: "clyde's flags and words stay", args: "--output-format json --name=x --destroy-data --size=1m job.fio --eta never",
			sections: `x{"name":"x","size":"1m"}`, rest: "--output-format json --destroy-data job.fio --eta never"},
		{name: "an option clyde does not know goes to the job", args: "--name=x --cpus_allowed=0",
			sections: `x{"name":"x","cpus_allowed":"0"}`},
		{name: "a log flag bare", args: "--name=x --write_lat_log --size=1m",
			sections: `x{"name":"x","size":"1m"}`},
		{name: "a log flag with its word", args: "--name=x --write_lat_log lg",
			sections: `x{"name":"x","write_lat_log":"lg"}`},
		{name: "after --", args: "--name=x -- --size=1m", sections: `x{"name":"x"}`, rest: "-- --size=1m"},
		{name: "a bool without a value", args: "--name=x --direct --rw=read", err: "--direct: needs a value"},
		{name: "a value at the end", args: "--name=x --bs", err: "--bs: needs a value"},
		{name: "an empty name", args: "--name= --rw=read", err: "--name: needs a job name"},
		{name: "--section skips every job", args: "--section=c --name=a --size=1m", err: "--name: no job to run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, rest, err := ParseCommandLine(strings.Fields(c.args), cliFlags)
			if c.err != "" && err == nil {
				_, err = Compile(f, Options{Exists: noFiles}) // what a line without a job says
			}
			if c.err != "" {
				if !result.IsUsage(err) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want a usage error with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range f.Sections {
				if !s.Typed {
					t.Errorf("section %s is not marked typed", s.Name)
				}
				b, _ := json.Marshal(echoSection(s))
				got = append(got, s.Name+string(b))
			}
			if g := strings.Join(got, " "); g != c.sections {
				t.Errorf("sections %s\nwant     %s", g, c.sections)
			}
			if g := strings.Join(rest, " "); g != c.rest {
				t.Errorf("rest %q, want %q", g, c.rest)
			}
		})
	}
}

// TestCommandLineCompiles: a command line compiles as the job file it
// stands for does, with fio's defaults for what it does not say.
func TestCommandLineCompiles(t *testing.T) {
	f, _, err := ParseCommandLine(strings.Fields("--name=x --rw=randread --bs=4k --size=16m --filename=f"), cliFlags)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(f, Options{Exists: noFiles})
	if err != nil {
		t.Fatal(err)
	}
	w := p.Groups[0][0]
	if w.Name != "x" || w.TimeBased || w.Runtime != 0 || w.Loops != 1 || !w.Invalidate || w.IOEngine != "psync" || w.Size != 16<<20 || !w.RandomMap {
		t.Errorf("workload %+v: want fio's defaults (size-based, one pass, invalidate, psync, random map)", w)
	}
	if len(p.GlobalOptions) != 0 {
		t.Errorf("global options %v: fio has none", p.GlobalOptions)
	}
}

// TestCommandLineAgainstFio runs fio's command lines through fio and
// clyde: the same entries, bytes, depth, job options and global options.
func TestCommandLineAgainstFio(t *testing.T) {
	fio := fioBinary(t)
	for _, args := range [][]string{
		{"--name=x", "--rw=randread", "--bs=4k", "--size=16m", "--filename=f"},
		{"--bs=8k", "--name=x", "--rw=randread", "--size=1m", "--filename=f", "--numjobs=2"},
		{"--name=a", "--size=64k", "--filename=s.dat", "--rw", "write", "--name=b", "--size=128k", "--filename=t.dat", "--stonewall"},
		{"--name=x", "--size=1MiB", "--kb_base=1000", "--filename=k.dat", "--rw=write"},
		{"--section=b", "--name=a", "--rw=write", "--name=b", "--size=64k", "--filename=b.dat"},
		{"--name=n", "--ioengine=null", "--size=1m", "--iodepth=1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			want, err := runFioArgs(fio, t.TempDir(), "", false, args...)
			if err != nil {
				t.Fatal(err)
			}
			f, rest, err := ParseCommandLine(args, cliFlags)
			if err != nil || !slices.Equal(rest, slices.DeleteFunc(slices.Clone(args), func(a string) bool { return !strings.HasPrefix(a, "--section") })) {
				t.Fatalf("rest %q, %v", rest, err)
			}
			got, _ := clydeFileInDir(t, t.TempDir(), f, nil)
			want.files, got.files = nil, nil
			for _, d := range compareRuns(want, got, nil, false, 0) {
				t.Errorf("%s (clyde's notes: %q)", d, got.notes)
			}
			for _, d := range compareDepthDist(want, got, 0.2) {
				t.Error(d)
			}
		})
	}
}

// FuzzParseCommandLine: reading never panics, keeps every word that is
// no flag in order, and a line it takes compiles or is refused with a
// usage error.
func FuzzParseCommandLine(f *testing.F) {
	for _, s := range []string{
		"--name=x --rw=randread --bs=4k --size=16m --filename=f", "--section=b --name=a --name=b", "--name --bs",
		"--name=global --bs=8k", "-name=x --direct 1 job.fio", "--name=x -- --size=1m", "--name=x --write_lat_log",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		file, rest, err := ParseCommandLine(args, cliFlags)
		if err != nil {
			if !result.IsUsage(err) {
				t.Fatalf("%q: %v is not a usage error", args, err)
			}
			return
		}
		var words, restWords []string
		for _, a := range args {
			if a == "--" {
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				words = append(words, a)
			}
		}
		for _, a := range rest {
			if a == "--" {
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				restWords = append(restWords, a)
			}
		}
		// Every rest word is one of args' words, in order (a value word
		// taken by an option is no longer there).
		i := 0
		for _, w := range restWords {
			for i < len(words) && words[i] != w {
				i++
			}
			if i == len(words) {
				t.Fatalf("%q: rest %q holds %q out of order", args, rest, w)
			}
			i++
		}
		if _, err := Compile(file, Options{Exists: noFiles}); err != nil && !result.IsUsage(err) {
			t.Fatalf("%q: compile: %v is not a usage error", args, fmt.Sprint(err))
		}
	})
}
