//go:build linux

package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// Exit codes clyde documents.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// progressWords are bonnie++'s progress messages in phase order, and the
// names clyde's one-line errors give the phases.
var phases = []struct{ word, name string }{
	{"Writing a byte at a time...", "per-char write"},
	{"Writing intelligently...", "block write"},
	{"Rewriting...", "rewrite"},
	{"Reading a byte at a time...", "per-char read"},
	{"Reading intelligently...", "block read"},
	{"start 'em...", "random seeks"},
	{"Create files in sequential order...", "sequential create"},
	{"Stat files in sequential order...", "sequential stat"},
	{"Delete files in sequential order...", "sequential delete"},
	{"Create files in random order...", "random create"},
	{"Stat files in random order...", "random stat"},
	{"Delete files in random order...", "random delete"},
}

// outcome is how one clyde process ended.
type outcome struct {
	code           int
	stdout, stderr string
}

// clydeCmd is the command line that runs clyde, behind prefix (setpriv ...)
// when there is one. CLYDE_PROGRESS=1 asks for bonnie++'s progress words
// on stderr, which clyde prints only to a terminal otherwise: the fault
// tests act on them.
func clydeCmd(prefix []string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if len(prefix) == 0 {
		cmd = exec.Command(clydeBin, args...)
	} else {
		all := append(append(append([]string{}, prefix[1:]...), clydeBin), args...)
		cmd = exec.Command(prefix[0], all...)
	}
	cmd.Env = append(os.Environ(), "CLYDE_PROGRESS=1")
	return cmd
}

// runClyde runs clyde to the end.
func runClyde(t *testing.T, args ...string) outcome {
	t.Helper()
	return runClydeAs(t, nil, args...)
}

func runClydeAs(t *testing.T, prefix []string, args ...string) outcome {
	t.Helper()
	cmd := clydeCmd(prefix, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Start()
	if err == nil {
		clydetest.Watch(t, cmd)
		err = cmd.Wait()
	}
	clydetest.Expired(t, clydetest.Context(t), "clyde "+strings.Join(args, " "))
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("run clyde: %v", err)
	}
	return outcome{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
}

// running is a clyde process the test watches and signals.
type running struct {
	cmd    *exec.Cmd
	stdout *clydetest.SyncBuffer
	stderr *clydetest.SyncBuffer
	done   chan struct{}
}

// startClyde starts clyde; the process is killed if the test ends first.
func startClyde(t *testing.T, args ...string) *running {
	t.Helper()
	r := &running{cmd: clydeCmd(nil, args...), stdout: &clydetest.SyncBuffer{}, stderr: &clydetest.SyncBuffer{}, done: make(chan struct{})}
	r.start(t)
	return r
}

// start starts r's command, made by the caller (who may set its
// environment); the process is killed if the test ends first.
func (r *running) start(t *testing.T) {
	t.Helper()
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	clydetest.Watch(t, r.cmd)
	go func() {
		_ = r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
}

// waitFor returns once clyde's stderr shows word; it fails the test when
// clyde ends first.
func (r *running) waitFor(t *testing.T, word string) {
	t.Helper()
	for !strings.Contains(r.stderr.String(), word) {
		select {
		case <-r.done:
			clydetest.Expired(t, clydetest.Context(t), "clyde, waiting for "+strconv.Quote(word))
			t.Fatalf("clyde ended (exit %d) before printing %q; stderr:\n%s",
				r.cmd.ProcessState.ExitCode(), word, r.stderr.String())
		case <-time.After(time.Millisecond):
		}
	}
}

// pauseAt stops clyde with SIGSTOP right after stderr shows word, so the
// test can change the filesystem while the phase has its work ahead of it
// however short the phase is; resume lets it go on.
func (r *running) pauseAt(t *testing.T, word string) {
	t.Helper()
	r.waitFor(t, word)
	r.signal(t, syscall.SIGSTOP)
}

func (r *running) resume(t *testing.T) { t.Helper(); r.signal(t, syscall.SIGCONT) }

func (r *running) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v: %v", sig, err)
	}
}

// wait waits for clyde to end; a run that does not end in two minutes after
// what the test did to it is a hang, and fails.
func (r *running) wait(t *testing.T) outcome {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(2 * time.Minute):
		_ = r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("clyde did not end; stderr:\n%s", r.stderr.String())
	}
	clydetest.Expired(t, clydetest.Context(t), "clyde")
	return outcome{r.cmd.ProcessState.ExitCode(), r.stdout.String(), r.stderr.String()}
}

// assertOneLineError checks that stderr ends with exactly one error line,
// "clyde: ...", holding every want, and that nothing follows it.
func assertOneLineError(t *testing.T, stderr string, want ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	first := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "clyde: ") {
			first = i
			break
		}
	}
	if first < 0 {
		t.Errorf("no \"clyde: \" error line; stderr:\n%s", stderr)
		return
	}
	if first != len(lines)-1 {
		t.Errorf("the error is not one line: %d lines from the first \"clyde: \":\n%s",
			len(lines)-first, strings.Join(lines[first:], "\n"))
	}
	for _, w := range want {
		if !strings.Contains(lines[first], w) {
			t.Errorf("error line %q does not say %q", lines[first], w)
		}
	}
}

// readFSResult decodes a saved clyde fs result.
func readFSResult(t *testing.T, path string) *result.FS {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read JSON result: %v", err)
	}
	var res result.FS
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return &res
}

// csvRates are the CSV fields (0-based) holding the twelve tests' rates, in
// phase order, and csvCPU the %CP next to each.
var csvRates = []int{9, 11, 13, 15, 17, 19, 26, 28, 30, 32, 34, 36}

// assertBonnieShaped checks bonnie++-shaped output: both text tables with a
// row of figures and a latency row each, and a 50-field 1.98 CSV line whose
// rates are numbers above zero or bonnie++'s "+++++" (too fast to measure).
func assertBonnieShaped(t *testing.T, tables, csv string, io, files bool) {
	t.Helper()
	assertBonnieShapedWithout(t, tables, csv, io, files, nil)
}

// assertBonnieShapedWithout is assertBonnieShaped for a run that skipped
// the tests skipped (-f: the per-char ones), whose CSV fields are empty.
func assertBonnieShapedWithout(t *testing.T, tables, csv string, io, files bool, skipped []result.FSTest) {
	t.Helper()
	tablesWanted := btoi(io) + btoi(files)
	if io && !strings.Contains(tables, "------Sequential Output------ --Sequential Input- --Random-") {
		t.Errorf("text lacks the I/O table:\n%s", tables)
	}
	if files && !strings.Contains(tables, "------Sequential Create------ --------Random Create--------") {
		t.Errorf("text lacks the file table:\n%s", tables)
	}
	if n := strings.Count(tables, "  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"); n != tablesWanted {
		t.Errorf("%d /sec %%CP header rows, want %d:\n%s", n, tablesWanted, tables)
	}
	if n := strings.Count(tables, "\nLatency "); n != tablesWanted {
		t.Errorf("%d Latency rows, want %d:\n%s", n, tablesWanted, tables)
	}
	lines := strings.Split(strings.TrimRight(csv, "\n"), "\n")
	line := lines[len(lines)-1]
	if !strings.HasPrefix(line, "1.98,clyde,") {
		t.Fatalf("last line %q is not a 1.98 CSV line", line)
	}
	f := strings.Split(line, ",")
	if len(f) != 50 {
		t.Fatalf("CSV line has %d fields, want 50: %s", len(f), line)
	}
	for i, idx := range csvRates {
		if (i < 6 && !io) || (i >= 6 && !files) {
			continue
		}
		v := f[idx]
		if v == "+++++" || v == "" && slices.Contains(skipped, result.FSTest(i)) {
			continue
		}
		if x, err := strconv.ParseFloat(v, 64); err != nil || x <= 0 {
			t.Errorf("CSV field %d (%s) = %q, want a rate above zero or +++++", idx, phases[i].name, v)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
