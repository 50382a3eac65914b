//go:build linux

package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivateDirSwappedMidRun swaps clyde's private directory for a symlink
// to a directory holding a file of the same name as clyde's big file, in the
// middle of a phase, as an attacker who can write to -d would. clyde once
// reopened the big file through the symlink in the next phase, wrote 64 MiB
// into the file outside and then deleted it. It must go on through its
// descriptors, change nothing outside, and say the directory was replaced.
func TestPrivateDirSwappedMidRun(t *testing.T) {
	fs := makeFS(t, ext4, 256)
	for _, word := range []string{"Writing intelligently...", "Rewriting...", "start 'em...", "Create files in sequential order..."} {
		t.Run(word, func(t *testing.T) {
			outside := t.TempDir()
			args := []string{"fs", "-d", fs.dir, "-s", "32:4k:20000", "-f", "-n", "4:1k:0:2", "-r", "0"}
			r := startClyde(t, args...)
			r.pauseAt(t, word)
			privs, _ := filepath.Glob(filepath.Join(fs.dir, "clyde.*"))
			if len(privs) != 1 {
				r.resume(t)
				t.Fatalf("%d private directories, want 1", len(privs))
			}
			priv := privs[0]
			victim := filepath.Join(outside, "Bonnie."+strings.Split(filepath.Base(priv), ".")[1])
			// As large as clyde's big file, so reads and writes through a
			// followed symlink would succeed and change it.
			if err := os.WriteFile(victim, bytes.Repeat([]byte("the user's file "), 2<<20), 0o640); err != nil {
				t.Fatal(err)
			}
			sum, _ := fileSum(victim)
			moved := filepath.Join(fs.dir, "moved-away")
			if err := os.Rename(priv, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, priv); err != nil {
				t.Fatal(err)
			}
			r.resume(t)
			o := r.wait(t)
			if got, _ := fileSum(victim); got != sum {
				t.Errorf("the file outside changed (exit %d)", o.code)
			}
			if fi, err := os.Stat(victim); err != nil || fi.Mode().Perm() != 0o640 {
				t.Errorf("the file outside is gone or its mode changed: %v %v", fi, err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 {
				t.Errorf("clyde created %d entries outside, want none", len(entries)-1)
			}
			if fi, err := os.Lstat(priv); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the symlink at %s was touched: %v %v", priv, fi, err)
			}
			if entries, _ := os.ReadDir(moved); len(entries) != 0 {
				t.Errorf("clyde left %d entries in its moved directory", len(entries))
			}
			if o.code != exitFailed {
				t.Errorf("exit %d, want %d: the run's directory was replaced", o.code, exitFailed)
			}
			assertOneLineError(t, o.stderr, "replaced")
			os.Remove(priv)
			os.Remove(moved)
		})
	}
}

// TestNothingInTempDir plants what once attacked the lock files in the
// shared temp directory: a clyde-locks symlink to a victim directory (whose
// mode MkdirAll + Chmod once turned 01777) and a symlinked lock file name.
// clyde must not touch either, and a read-only or missing TMPDIR must not
// stop a run.
func TestNothingInTempDir(t *testing.T) {
	needRoot(t)
	tmp, victimDir := t.TempDir(), t.TempDir()
	if err := os.Chmod(victimDir, 0o750); err != nil {
		t.Fatal(err)
	}
	victimFile := filepath.Join(victimDir, "passwd")
	if err := os.WriteFile(victimFile, []byte("root:x:0:0"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victimDir, filepath.Join(tmp, "clyde-locks")); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	sum, _ := fileSum(victimFile)
	for _, tmpdir := range []string{tmp, "/nonexistent/tmp", "/proc"} {
		cmd := clydeCmd(nil, "fs", "-d", work, "-s", "0", "-n", "1", "-r", "0", "-q", "--no-history")
		cmd.Env = append(cmd.Env, "TMPDIR="+tmpdir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("TMPDIR=%s: %v\n%s", tmpdir, err, out)
		}
	}
	fi, err := os.Stat(victimDir)
	if err != nil || fi.Mode().Perm() != 0o750 || fi.Mode()&os.ModeSticky != 0 {
		t.Errorf("victim directory mode %v, want 0750", fi.Mode())
	}
	if got, _ := fileSum(victimFile); got != sum {
		t.Error("victim file changed")
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("TMPDIR holds %d entries after the runs, want only the planted symlink", len(entries))
	}
	if entries, _ := os.ReadDir(victimDir); len(entries) != 1 {
		t.Errorf("victim directory holds %d entries, want 1", len(entries))
	}
}
