package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/cdm"
	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/clydetest"
)

func TestVersionNamesCommitAndGo(t *testing.T) {
	code, stdout, _ := runClyde(t, "--version")
	if code != 0 || !strings.HasPrefix(stdout, "clyde version ") || !strings.Contains(stdout, "built with "+runtime.Version()+" ") {
		t.Errorf("clyde --version: exit %d, %q; want the version and %s", code, stdout, runtime.Version())
	}
}

// writeManPages runs clyde man into a temporary directory with the
// repository's README and docs, as make install does.
func writeManPages(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"man", "--dir", dir, "--readme", "../../README.md"}
	docs, _ := filepath.Glob("../../docs/*.md")
	for _, d := range docs {
		args = append(args, "--readme", d)
	}
	if code, _, stderr := runClyde(t, args...); code != 0 {
		t.Fatalf("clyde man: exit %d: %s", code, stderr)
	}
	return dir
}

// TestManPagesRender renders every page with groff's warnings all on
// (-ww) and with man -l, and checks each lists its command's flags.
func TestManPagesRender(t *testing.T) {
	if _, err := exec.LookPath("groff"); err != nil {
		clydetest.Skip(t, "groff is not installed (apt-get install groff)")
	}
	dir := writeManPages(t)
	app := newApp(nil, nil)
	want := []string{"clyde.1"}
	for _, c := range visibleCommands(app) {
		want = append(want, "clyde-"+c.Name+".1")
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("pages %v, want %v", got, want)
	}
	for _, name := range got {
		t.Run(name, func(t *testing.T) {
			page := filepath.Join(dir, name)
			out, err := exec.Command("groff", "-ww", "-z", "-man", page).CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Errorf("groff -ww -z -man %s: %v\n%s", name, err, out)
			}
			text := renderMan(t, page)
			for _, s := range []string{"NAME", "SYNOPSIS", "EXIT STATUS", "SEE ALSO", "bonnie++(8)", "fio(1)", "130"} {
				if !strings.Contains(text, s) {
					t.Errorf("%s has no %q", name, s)
				}
			}
			cmd := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(name, ".1"), "clyde"), "")
			cmd = strings.TrimPrefix(cmd, "-")
			if cmd == "" {
				return
			}
			c := app.Command(cmd)
			for _, f := range visibleFlags(c.Flags) {
				if !strings.Contains(text, dashedNames(f)[len(dashedNames(f))-1]) {
					t.Errorf("%s does not list %v", name, f.Names())
				}
			}
		})
	}
	fs := renderMan(t, filepath.Join(dir, "clyde-fs.1"))
	for _, s := range []string{"DIFFERENCES FROM BONNIE++", "EXAMPLES", "clyde fs -d /mnt/ssd -n 256:4096:512:16 -s 2048 -r 1024", "FILES", "history.db", "-d, --dir DIR"} {
		if !strings.Contains(fs, s) {
			t.Errorf("clyde-fs(1) has no %q", s)
		}
	}
	if block := renderMan(t, filepath.Join(dir, "clyde-block.1")); !strings.Contains(block, "EXAMPLES") || !strings.Contains(block, "clyde block --filename /mnt/ssd --profile cdm") {
		t.Errorf("clyde-block(1) has no EXAMPLES from the README")
	}
}

func renderMan(t *testing.T, page string) string {
	t.Helper()
	if _, err := exec.LookPath("man"); err != nil {
		clydetest.Skip(t, "man is not installed (apt-get install man-db)")
	}
	cmd := exec.Command("man", "-l", page)
	cmd.Env = append(os.Environ(), "MANWIDTH=100", "MANPAGER=cat", "PAGER=cat", "LANG=C.UTF-8")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("man -l %s: %v: %s", page, err, stderr.String())
	}
	// col -b's work: drop overstrike (bold, underline) from the output.
	var b strings.Builder
	rs := []rune(string(out))
	for i := 0; i < len(rs); i++ {
		if i+1 < len(rs) && rs[i+1] == '\b' {
			i++
			continue
		}
		b.WriteRune(rs[i])
	}
	return strings.ReplaceAll(b.String(), "\u2010", "-")
}

// writeCompletion writes clyde's completion script for shell.
func writeCompletion(t *testing.T, shell string) string {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		clydetest.Skipf(t, "%s is not installed (CI installs it: .ci/run)", shell)
	}
	code, stdout, stderr := runClyde(t, "completion", shell)
	if code != 0 {
		t.Fatalf("clyde completion %s: exit %d: %s", shell, code, stderr)
	}
	path := filepath.Join(t.TempDir(), "clyde."+shell)
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// completionDir is a working directory with one directory and one file, so
// that file and directory completion have something to offer.
func completionDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "mnt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "job.fio"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func strsOf[T ~string](vs []T) []string { return strs(vs) }

// completionCases are what a user types and what the shell must offer.
func completionCases() []struct {
	name, line string
	want       []string
} {
	return []struct {
		name, line string
		want       []string
	}{
		{"command", "clyde bl", []string{"block"}},
		{"completion's shells", "clyde completion ", []string{"bash", "fish", "zsh"}},
		{"rw modes", "clyde block --rw ", strsOf(blockbench.RWModes)},
		{"rw after =", "clyde block --rw=randr", []string{"randread", "randrw"}},
		{"engines", "clyde block --ioengine ", strsOf(blockbench.Engines)},
		{"profiles", "clyde block --profile ", blockPresetNames},
		{"cdm presets", "clyde block --cdm-preset ", strsOf(cdm.Presets)},
		{"output formats", "clyde block --output-format ", blockreport.Formats},
		{"report formats", "clyde report --format ", reportFormats},
		{"fs flags", "clyde fs --no-e", []string{"--no-evict"}},
		{"fs -d takes a directory", "clyde fs -d ", []string{"mnt/"}},
		{"job file", "clyde block jo", []string{"job.fio"}},
	}
}

func sortedSet(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// TestCompletionBash loads the script in bash and runs its function as
// bash's programmable completion does, on each case's words.
func TestCompletionBash(t *testing.T) {
	script := writeCompletion(t, "bash")
	dir := completionDir(t)
	for _, c := range completionCases() {
		t.Run(c.name, func(t *testing.T) {
			// COMP_WORDS as readline splits them: '=' is a word of its own.
			line := strings.Replace(c.line, "=", " = ", 1)
			words := strings.Fields(line)
			if strings.HasSuffix(line, " ") {
				words = append(words, "")
			}
			var quoted []string
			for _, w := range words {
				quoted = append(quoted, "'"+w+"'")
			}
			prog := "source " + script + "\n" +
				"complete -p clyde >/dev/null || exit 9\n" +
				"COMP_WORDS=(" + strings.Join(quoted, " ") + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n" +
				"_clyde; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
			cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, out)
			}
			got := sortedSet(strings.Split(string(out), "\n"))
			if !slices.Equal(got, sortedSet(c.want)) {
				// bash adds the directory's slash itself (compopt -o filenames)
				if !slices.Equal(got, sortedSet(trimSlash(c.want))) {
					t.Errorf("%q offers %q, want %q", c.line, got, sortedSet(c.want))
				}
			}
		})
	}
}

func trimSlash(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, strings.TrimSuffix(s, "/"))
	}
	return out
}

// TestCompletionFish asks fish's own completion engine (complete -C) with
// the script loaded.
func TestCompletionFish(t *testing.T) {
	script := writeCompletion(t, "fish")
	dir := completionDir(t)
	for _, c := range completionCases() {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("fish", "--no-config", "-c", "source "+script+"; complete -C '"+c.line+"'")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("fish: %v\n%s", err, out)
			}
			var got []string
			for _, l := range strings.Split(string(out), "\n") {
				w, _, _ := strings.Cut(l, "\t")
				if i := strings.LastIndex(c.line, "="); i > 0 && strings.HasPrefix(w, c.line[strings.LastIndex(c.line, " ")+1:i+1]) {
					w = w[len(c.line[strings.LastIndex(c.line, " ")+1:i+1]):] // fish offers --rw=randread
				}
				got = append(got, w)
			}
			if !slices.Equal(sortedSet(got), sortedSet(c.want)) {
				t.Errorf("%q offers %q, want %q", c.line, sortedSet(got), sortedSet(c.want))
			}
		})
	}
}

// TestCompletionZsh parses the script, loads it through compinit as a zsh
// with the file in its fpath would, and asks an interactive zsh (on a
// pseudo-terminal, zsh/zpty) for each case's list of completions (^D).
func TestCompletionZsh(t *testing.T) {
	script := writeCompletion(t, "zsh")
	if out, err := exec.Command("zsh", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	fpath := t.TempDir()
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fpath, "_clyde"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// One interactive zsh answers every case: type the line and list the
	// choices, read until the listing has settled, kill the line, then
	// print a marker and read up to it (the marker is quoted in the
	// command, so its echo does not match). Listing and killing are bound
	// to ^Xl and ^Xk, not typed as ^D and ^U: keys that arrive while the
	// previous command still runs meet the terminal in canonical mode,
	// where ^U erases the line and ^D ends it before zle sees them (on a
	// busy machine, every case after the first lost). A marker that does
	// not come back within a few seconds is asked for again, and a case
	// that never answers is reported as such instead of hanging the test.
	cases := completionCases()
	var prog strings.Builder
	prog.WriteString(`zmodload zsh/zpty
zpty -b z zsh -f -i
# settle: read what z prints until it has been quiet for half a second
settle() { local chunk q=0; out=; while (( q < 5 )); do if zpty -rt z chunk; then out+=$chunk; q=0; else sleep 0.1; (( q++ )); fi; done }
# mark N: ask z to print MARK-N and read up to it, asking again if it is lost
mark() { local chunk n=0; while (( n < 300 )); do
  if (( n % 50 == 0 )); then zpty -w z "print \"MARK\"\"-$1\""; fi
  if zpty -rt z chunk; then out+=$chunk; [[ $out == *MARK-$1* ]] && return 0; else sleep 0.1; (( n++ )); fi
done; out+=" (no answer)"; return 1 }
`)
	prog.WriteString("zpty -w z 'PS1=; fpath=(" + fpath + " $fpath); autoload -Uz compinit; compinit -u -D; LISTMAX=1000; bindkey \"^Xl\" list-choices; bindkey \"^Xk\" kill-whole-line; print -r -- $_comps[clyde]'\n" +
		"out=; mark start; print -r -- \"$out\"\n")
	for i, c := range cases {
		fmt.Fprintf(&prog, "zpty -w -n z %s$'\\x18l'\nsettle; all=$out\nzpty -w -n z $'\\x18k'\nout=; mark %d; print -r -- \"CASE %d $all$out\"\n", shellQuote(c.line), i, i)
	}
	prog.WriteString("zpty -d z\n")
	cmd := exec.Command("zsh", "-f", "-c", prog.String())
	cmd.Dir = completionDir(t)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "TERM=xterm")
	cmd.WaitDelay = time.Second
	timer := time.AfterFunc(3*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	parts := strings.Split(string(out), "CASE ")
	if !strings.Contains(parts[0], "_clyde") {
		t.Errorf("compinit did not register _clyde for clyde: %q", parts[0])
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if i+1 >= len(parts) {
				t.Fatalf("no answer for %q", c.line)
			}
			// the typed line is echoed: only the listing may match
			got := strings.ReplaceAll(parts[i+1], strings.TrimSpace(c.line), "")
			for _, w := range c.want {
				if !strings.Contains(got, strings.TrimSuffix(w, "/")) {
					t.Errorf("%q: zsh does not offer %q:\n%s", c.line, w, got)
				}
			}
		})
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
