//go:build linux

package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// populate gives a filesystem something to lose: files with content, an
// empty file, a subdirectory, unusual modes and a symlink. It is flushed so
// a crash-like fault later cannot take it away.
func populate(t *testing.T, root string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 96<<10)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	files := []struct {
		path string
		mode os.FileMode
		body []byte
	}{
		{"README", 0o644, []byte("clyde integration: this must survive\n")},
		{"keep/notes.txt", 0o640, []byte("notes\n")},
		{"keep/empty", 0o600, nil},
		{"keep/deep/data.bin", 0o644, data},
		{"keep/deep/er/tiny", 0o755, []byte{0}},
	}
	for _, f := range files {
		p := filepath.Join(root, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.body, f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("notes.txt", filepath.Join(root, "keep", "link")); err != nil {
		t.Fatal(err)
	}
	syncFS(t, root)
}

// syncFS flushes the filesystem holding dir.
func syncFS(t *testing.T, dir string) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Syncfs(fd); err != nil {
		t.Fatalf("syncfs %s: %v", dir, err)
	}
}

// listing is a recursive listing of root: every entry's path, type, mode and
// size, a symlink's target and a regular file's SHA-256. Directory sizes are
// left out: they are the filesystem's bookkeeping (ext4 never shrinks a
// directory, NTFS keeps index blocks), not content.
func listing(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %s", rel, fi.Mode())
		switch {
		case fi.Mode().IsRegular():
			sum, err := fileSum(path)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" size=%d sha256=%s", fi.Size(), sum)
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" size=%d -> %s", fi.Size(), target)
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatalf("list %s: %v", root, err)
	}
	return out
}

func fileSum(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8]), nil
}

// assertSameListing fails the test with the difference when the filesystem
// no longer holds exactly what it held before.
func assertSameListing(t *testing.T, root string, before []string) {
	t.Helper()
	after := listing(t, root)
	was := make(map[string]bool, len(before))
	for _, l := range before {
		was[l] = true
	}
	is := make(map[string]bool, len(after))
	for _, l := range after {
		is[l] = true
	}
	var diff []string
	for _, l := range before {
		if !is[l] {
			diff = append(diff, "- "+l)
		}
	}
	for _, l := range after {
		if !was[l] {
			diff = append(diff, "+ "+l)
		}
	}
	if len(diff) > 0 {
		t.Errorf("%s changed (- before, + after):\n%s", root, strings.Join(diff, "\n"))
	}
}

// ballast fills the filesystem of dir with one file, quickly (fallocate,
// then small writes for what is left), until the filesystem says ENOSPC.
// It returns the file, which the test removes.
func ballast(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ballast")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var off int64
	for step := int64(1 << 30); step >= 1<<20; {
		err := unix.Fallocate(int(f.Fd()), 0, off, step)
		switch {
		case err == nil:
			off += step
		case errors.Is(err, unix.ENOSPC):
			step /= 2
		case errors.Is(err, unix.EOPNOTSUPP):
			step = 0
		default:
			t.Fatalf("fallocate ballast: %v", err)
		}
	}
	block := make([]byte, 4096)
	for {
		_, err := f.WriteAt(block, off)
		if errors.Is(err, unix.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatalf("write ballast: %v", err)
		}
		off += int64(len(block))
	}
	// Delayed allocation (ext4, btrfs, xfs) may accept writes that have no
	// room yet: flushing settles it, and what it frees is taken again.
	_ = f.Sync()
	for {
		if _, err := f.WriteAt(block, off); err != nil {
			break
		}
		off += int64(len(block))
	}
	return path
}
