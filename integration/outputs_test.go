//go:build linux

package integration

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// quickFS is the shortest clyde fs run: 1024 empty files, no I/O tests,
// no history (these tests are about where results go).
func quickFS(dir string, extra ...string) []string {
	return append([]string{"fs", "-d", dir, "-s", "0", "-n", "1:0:0:1", "-q", "-m", "out", "--no-history"}, extra...)
}

func needRootHere(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: "+why)
	}
}

// victimState is what a test checks is untouched: type, mode, device number,
// owner and, for a regular file, a checksum of its bytes.
func victimState(t *testing.T, path string) string {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatalf("lstat %s: %v", path, err)
	}
	s := fmt.Sprintf("mode %o rdev %d:%d owner %d:%d ino %d", st.Mode, unix.Major(st.Rdev), unix.Minor(st.Rdev), st.Uid, st.Gid, st.Ino)
	if st.Mode&unix.S_IFMT == unix.S_IFREG {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s += fmt.Sprintf(" sha256 %x", sha256.Sum256(b))
	}
	return s
}

// TestJSONAtADeviceNode: --json at a character device writes into it and
// leaves it a device of the same type and number. The old temporary file
// and rename turned /dev/full into a regular file.
func TestJSONAtADeviceNode(t *testing.T) {
	needRootHere(t, "mknod")
	for _, dev := range []struct {
		name         string
		major, minor uint32
		code         int
		says         string
	}{
		{"null", 1, 3, exitOK, ""},
		{"full", 1, 7, exitFailed, "no space left on device"},
	} {
		t.Run(dev.name, func(t *testing.T) {
			nodes := t.TempDir()
			node := filepath.Join(nodes, dev.name)
			if err := unix.Mknod(node, unix.S_IFCHR|0o666, int(unix.Mkdev(dev.major, dev.minor))); err != nil {
				clydetest.Skipf(t, "mknod: %v", err)
			}
			before := victimState(t, node)
			r := runClyde(t, quickFS(t.TempDir(), "--json", node)...)
			if r.code != dev.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, dev.code, r.stderr)
			}
			if dev.says != "" {
				assertOneLineError(t, r.stderr, "--json", dev.says)
			}
			if !strings.Contains(r.stdout, "1.98,clyde,out,") {
				t.Errorf("the result was not printed: %q", r.stdout)
			}
			if after := victimState(t, node); after != before {
				t.Fatalf("the device changed:\nbefore %s\nafter  %s", before, after)
			}
			if names, _ := os.ReadDir(nodes); len(names) != 1 {
				t.Fatalf("left beside the device: %v", names)
			}
		})
	}
}

// TestJSONToDevStdout: --json /dev/stdout prints the JSON after the CSV
// line, into a pipe and into a file stdout is redirected to (where opening
// /proc/self/fd/1 afresh would write over the CSV line from offset 0, and
// replacing the file would leave clyde's stdout writing to a deleted one).
func TestJSONToDevStdout(t *testing.T) {
	check := func(t *testing.T, stdout string) {
		t.Helper()
		csv, js, ok := strings.Cut(stdout, "\n")
		var res result.FS
		if !ok || !strings.HasPrefix(csv, "1.98,clyde,out,") || json.Unmarshal([]byte(js), &res) != nil || len(res.Runs) != 1 {
			t.Fatalf("stdout is not the CSV line then the JSON result:\n%s", stdout)
		}
	}
	guardDevStdout(t)
	t.Run("pipe", func(t *testing.T) {
		r := runClyde(t, quickFS(t.TempDir(), "--json", "/dev/stdout")...)
		if r.code != exitOK {
			t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
		}
		check(t, r.stdout)
	})
	t.Run("redirected to a file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.txt")
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd := clydeCmd(nil, quickFS(t.TempDir(), "--json", "/dev/stdout")...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = f, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v; stderr:\n%s", err, stderr.String())
		}
		b, _ := os.ReadFile(out)
		check(t, string(b))
	})
}

// guardDevStdout makes sure the machine's /dev/stdout is the usual symlink
// before the test and puts it back after one that replaced it (as clyde's
// old temporary-file-and-rename did), failing the test: a regression must
// not break every later program's /dev/stdout.
func guardDevStdout(t *testing.T) {
	t.Helper()
	const dest = "/proc/self/fd/1"
	if got, err := os.Readlink("/dev/stdout"); err != nil || got != dest {
		clydetest.Skipf(t, "/dev/stdout is not the usual symlink to %s (%q, %v)", dest, got, err)
	}
	t.Cleanup(func() {
		if got, err := os.Readlink("/dev/stdout"); err == nil && got == dest {
			return
		}
		t.Errorf("clyde replaced /dev/stdout; putting the symlink back")
		tmp := "/dev/.stdout.restore"
		os.Remove(tmp)
		if err := os.Symlink(dest, tmp); err != nil || os.Rename(tmp, "/dev/stdout") != nil {
			t.Errorf("could not restore /dev/stdout: %v", err)
		}
	})
}

// TestJSONThroughAPlantedSymlink: another user's symlink in a shared
// sticky directory, where root's --json is about to write, is not followed.
func TestJSONThroughAPlantedSymlink(t *testing.T) {
	needRootHere(t, "a symlink owned by another user")
	base := t.TempDir()
	shared := filepath.Join(base, "tmp")
	os.Mkdir(shared, 0o777)
	os.Chmod(shared, os.ModeSticky|0o777)
	target := filepath.Join(base, "passwd")
	os.WriteFile(target, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644)
	link := filepath.Join(shared, "r.json")
	os.Symlink(target, link)
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	before := victimState(t, target)
	dir := t.TempDir()
	r := runClyde(t, quickFS(dir, "--json", link)...)
	if r.code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitUsage, r.stderr)
	}
	assertOneLineError(t, r.stderr, "--json", "another user's symlink")
	if after := victimState(t, target); after != before {
		t.Fatalf("the symlink's target changed:\nbefore %s\nafter  %s", before, after)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Fatalf("a refused run left %v", names)
	}
}

// TestCompareRefusesEndlessInput: a symlink to /dev/zero and a FIFO
// nobody writes are refused at once with one line and exit 2; the first
// grew clyde to 24 GB, the second hung through ^C.
func TestCompareRefusesEndlessInput(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.json")
	os.Symlink("/dev/zero", zero)
	fifo := filepath.Join(dir, "fifo.json")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	other := "../testdata/compare/bonnie-2.00a-ext4.txt"
	for _, tc := range []struct{ name, arg, says string }{
		{"symlink to /dev/zero", zero, "is a character device, not a regular file"},
		{"FIFO with no writer", fifo, "is a FIFO, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range []string{"compare", "report"} {
				before := victimState(t, tc.arg)
				r := startClyde(t, cmd, other, tc.arg)
				select {
				case <-r.done:
				case <-time.After(20 * time.Second):
					t.Fatalf("clyde %s hangs on %s", cmd, tc.arg)
				}
				o := r.wait(t)
				if o.code != exitUsage {
					t.Fatalf("clyde %s: exit %d, want %d; stderr:\n%s", cmd, o.code, exitUsage, o.stderr)
				}
				assertOneLineError(t, o.stderr, tc.arg, tc.says)
				if after := victimState(t, tc.arg); after != before {
					t.Fatalf("%s changed:\nbefore %s\nafter  %s", tc.arg, before, after)
				}
			}
		})
	}
}

// TestCompareStdinHonoursInterrupt: compare - waiting on a FIFO that a
// writer holds open but never writes to stops at the first SIGINT.
func TestCompareStdinHonoursInterrupt(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// O_RDWR opens a FIFO without waiting for the other end: this is the
	// writer that never writes, and clyde's stdin reads from it.
	hold, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	cmd := clydeCmd(nil, "compare", "-", "../testdata/compare/bonnie-2.00a-ext4.txt")
	cmd.Stdin = hold
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	// The signal goes once clyde reads its standard input (by then it has
	// its handlers): a fixed sleep was a guess a busy machine could beat.
	waitReadingStdin(t, cmd.Process.Pid, done)
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the first SIGINT did not stop clyde reading standard input")
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr.String())
	}
	assertOneLineError(t, stderr.String(), "standard input", "interrupted")
}

// waitReadingStdin returns once a thread of pid is blocked reading its
// standard input from a pipe or FIFO (the kernel's wait channel names the
// pipe read, or the thread's syscall is read(0, ...)); it fails the test if
// the process ends first or is not there within a minute.
func waitReadingStdin(t *testing.T, pid int, done <-chan struct{}) {
	t.Helper()
	read := strconv.Itoa(unix.SYS_READ) + " 0x0 "
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		select {
		case <-done:
			t.Fatal("clyde ended before it read its standard input")
		default:
		}
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
		for _, task := range tasks {
			wchan, _ := os.ReadFile(filepath.Join(task, "wchan"))
			sc, _ := os.ReadFile(filepath.Join(task, "syscall"))
			if strings.Contains(string(wchan), "pipe") || strings.HasPrefix(string(sc), read) {
				return
			}
		}
	}
	t.Fatal("clyde did not block reading its standard input within a minute")
}

// TestForeignDatabase: CLYDE_DB pointing at another program's SQLite file
// (made with the sqlite3 tool) is refused by every command, and the file
// stays byte for byte what it was, with nothing created beside it.
func TestForeignDatabase(t *testing.T) {
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		clydetest.Skip(t, "needs the sqlite3 tool (Debian package sqlite3)")
	}
	dbDir := t.TempDir()
	db := filepath.Join(dbDir, "places.sqlite")
	if out, err := exec.Command(sqlite3, db, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://example.org');").CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v %s", err, out)
	}
	before := victimState(t, db)
	runWithDB := func(args ...string) outcome {
		cmd := clydeCmd(nil, args...)
		cmd.Env = append(cmd.Env, "CLYDE_DB="+db)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			t.Fatal(err)
		}
		return outcome{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
	}
	work := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"fs saving to it", []string{"fs", "-d", work, "-s", "0", "-n", "1:0:0:1", "-q"}, exitUsage},
		{"fs checking a regression", []string{"fs", "-d", work, "-s", "0", "-n", "1:0:0:1", "-q", "--no-history", "--check-regression", "10"}, exitUsage},
		{"history", []string{"history"}, exitFailed},
		{"compare by id", []string{"compare", "1", "2"}, exitFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runWithDB(tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			assertOneLineError(t, r.stderr, db, `"moz_places"`, "not clyde's")
			if after := victimState(t, db); after != before {
				t.Fatalf("the database changed:\nbefore %s\nafter  %s", before, after)
			}
			if names, _ := os.ReadDir(dbDir); len(names) != 1 {
				t.Fatalf("beside the database: %v", names)
			}
			if names, _ := os.ReadDir(work); len(names) != 0 {
				t.Fatalf("a refused run left %v in -d", names)
			}
		})
	}
}
