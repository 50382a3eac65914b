package fiojob

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// valueFlags stands for a CLI's flag list: these take the next word.
func valueFlags(name string) bool {
	switch name {
	case "rw", "bs", "name", "filename", "write_bw_log", "write_iops_log", "write_lat_log":
		return true
	}
	return false
}

// TestNormalizeArgs: fio takes the word after --write_lat_log (and the bw
// and iops ones) as its prefix (fio ... --write_lat_log lg writes
// lg_clat.1.log), and none before another flag or at the end; the job file
// anywhere.
func TestNormalizeArgs(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []string
		err  string
	}{
		{"next word", []string{"--write_lat_log", "lg", "--rw", "read"}, []string{"--write_lat_log=lg", "--rw", "read"}, ""},
		{"before a flag", []string{"--write_bw_log", "--rw", "read"}, []string{"--write_bw_log=", "--rw", "read"}, ""},
		{"at the end", []string{"job.fio", "--write_iops_log"}, []string{"--write_iops_log=", "--", "job.fio"}, ""},
		{"with =", []string{"--write_lat_log=x", "job.fio"}, []string{"--write_lat_log=x", "--", "job.fio"}, ""},
		{"single dash", []string{"-write_lat_log", "lg"}, []string{"--write_lat_log=lg"}, ""},
		{"job file first", []string{"job.fio", "--rw", "read", "--direct"}, []string{"--rw", "read", "--direct", "--", "job.fio"}, ""},
		{"job file between", []string{"--direct", "job.fio", "--bs", "8k"}, []string{"--direct", "--bs", "8k", "--", "job.fio"}, ""},
		{"value looks like a word", []string{"--bs", "8k", "--filename", "f"}, []string{"--bs", "8k", "--filename", "f"}, ""},
		{"value flag at the end", []string{"--bs"}, []string{"--bs"}, ""},
		{"words after --", []string{"--direct", "--", "a", "--rw"}, []string{"--direct", "--", "a", "--rw"}, ""},
		{"lone dash is a word", []string{"-", "--direct"}, []string{"--direct", "--", "-"}, ""},
		{"nothing", nil, []string{}, ""},
		{"one name", []string{"--name", "a", "--rw=read"}, []string{"--name", "a", "--rw=read"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := NormalizeArgs(c.args, valueFlags, nil)
			if c.err != "" {
				var u *result.UsageError
				if !errors.As(err, &u) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("NormalizeArgs(%q) = %q, %v; want a usage error with %q", c.args, got, err, c.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("NormalizeArgs(%q) = %q, %v; want %q", c.args, got, err, c.want)
			}
		})
	}
}

// TestNormalizeArgsCheckWord: the CLI's check sees every bare word before
// "--", and its refusal is NormalizeArgs's.
func TestNormalizeArgsCheckWord(t *testing.T) {
	var seen []string
	refuse := errors.New("refused")
	check := func(w string) error {
		seen = append(seen, w)
		if w == "bad" {
			return refuse
		}
		return nil
	}
	if _, err := NormalizeArgs([]string{"a", "--bs", "8k", "b", "--", "bad"}, valueFlags, check); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"a", "b"}) {
		t.Errorf("checked %q, want the bare words before --: a, b", seen)
	}
	if _, err := NormalizeArgs([]string{"a", "bad"}, valueFlags, check); !errors.Is(err, refuse) {
		t.Errorf("err %v, want the check's", err)
	}
}

// FuzzNormalizeArgs: normalising is idempotent (the flag parser may see its
// own output again), keeps every word after "--" in order, and never
// refuses what it accepted once.
func FuzzNormalizeArgs(f *testing.F) {
	for _, s := range []string{
		"--write_lat_log lg --rw read", "job.fio --write_iops_log", "--name=a --name=b", "--bs -- x",
		"- --direct", "---write_bw_log=x y", "--write_lat_log -", "a -- b -- c", "--name",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		once, err := NormalizeArgs(args, valueFlags, nil)
		if err != nil {
			return
		}
		if danglingValueFlag(once) {
			// A value flag with no word left before "--": a second pass
			// takes "--" as its value, as the flag parser does.
			return
		}
		twice, err := NormalizeArgs(once, valueFlags, nil)
		if err != nil || !slices.Equal(once, twice) {
			t.Fatalf("NormalizeArgs(%q) = %q; again: %q, %v", args, once, twice, err)
		}
		if i := slices.Index(args, "--"); i >= 0 && !slices.Contains(args[:i], "") {
			tail := args[i+1:]
			if len(once) < len(tail) || !slices.Equal(once[len(once)-len(tail):], tail) {
				t.Fatalf("NormalizeArgs(%q) = %q: the words after -- are not at its end", args, once)
			}
		}
	})
}

// danglingValueFlag says whether args end their flags with one that takes
// a value and has none.
func danglingValueFlag(args []string) bool {
	end := len(args)
	if i := slices.Index(args, "--"); i >= 0 {
		end = i
	}
	for i := 0; i < end; i++ {
		if a := args[i]; strings.HasPrefix(a, "-") && a != "-" && !strings.Contains(a, "=") && valueFlags(strings.TrimLeft(a, "-")) {
			if i+1 >= end {
				return true
			}
			i++
		}
	}
	return false
}

// TestFlagOverrides: the flags given become options by fio's names, in the
// table's order, a bare log flag a bare option.
func TestFlagOverrides(t *testing.T) {
	given := map[string]string{"seed": "7", "write_lat_log": "", "direct": "1", "write_bw_log": "p"}
	got := FlagOverrides(func(flag string) (string, bool) { v, ok := given[flag]; return v, ok })
	want := []Option{
		{Name: "direct", Value: "1", HasValue: true, Pos: "--direct"},
		{Name: "randseed", Value: "7", HasValue: true, Pos: "--seed"},
		{Name: "write_bw_log", Value: "p", HasValue: true, Pos: "--write_bw_log"},
		{Name: "write_lat_log", Value: "", HasValue: false, Pos: "--write_lat_log"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("FlagOverrides = %+v\nwant %+v", got, want)
	}
}

// TestJobFileFlagsAreOptions: every override names an option the job-file
// reader takes, so a flag after a job file is never refused as unknown.
func TestJobFileFlagsAreOptions(t *testing.T) {
	supported := Supported()
	for _, m := range JobFileFlags {
		if !slices.Contains(supported, m.Option) {
			t.Errorf("--%s overrides %s, which the job-file reader does not take", m.Flag, m.Option)
		}
	}
}

// TestCommandLineLogs: a log flag's value is its prefix, a bare one the
// job's name, one not given no log.
func TestCommandLineLogs(t *testing.T) {
	given := map[string]string{"write_bw_log": "", "write_lat_log": "lg"}
	got := CommandLineLogs("randread", 100, true, func(flag string) (string, bool) { v, ok := given[flag]; return v, ok })
	if want := (LogSpec{BW: "randread", Lat: "lg", AvgMsec: 100, Offset: true}); got != want {
		t.Errorf("CommandLineLogs = %+v, want %+v", got, want)
	}
}
