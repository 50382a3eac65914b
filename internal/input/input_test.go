package input

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

var errStop = errors.New("interrupted")

// finish runs f and fails the test if it has not returned in a minute: a
// reader that blocks (on a FIFO's open, say) is the bug, not a slow machine.
func finish[T any](t *testing.T, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(time.Minute):
		t.Fatal("the read blocked")
		panic("unreachable")
	}
}

func TestReadFile(t *testing.T) {
	write := func(s string) func(*testing.T, string) string {
		return func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "f")
			if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	tests := []struct {
		name    string
		path    func(*testing.T, string) string
		max     int64
		want    string // the content, or a part of the error
		refused bool
	}{
		{"regular file", write("rw=read\n"), 0, "rw=read\n", false},
		{"empty file", write(""), 0, "", false},
		{"at the limit", write("12345"), 5, "12345", false},
		{"over the limit", write("123456"), 5, "is 6 bytes, over the 5 bytes limit", true},
		{"directory", func(t *testing.T, dir string) string { return dir }, 0, "is a directory, not a regular file", true},
		{"FIFO", func(t *testing.T, dir string) string { return mkfifo(t, filepath.Join(dir, "fifo")) }, 0, "is a FIFO, not a regular file", true},
		{"symlink to a FIFO", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "link")
			if err := os.Symlink(mkfifo(t, filepath.Join(dir, "fifo")), p); err != nil {
				clydetest.Skip(t, err)
			}
			return p
		}, 0, "is a FIFO", true},
		{"symlink to /dev/zero", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "link")
			if _, err := os.Stat("/dev/zero"); err != nil {
				clydetest.Skip(t, "no /dev/zero")
			}
			if err := os.Symlink("/dev/zero", p); err != nil {
				clydetest.Skip(t, err)
			}
			return p
		}, 0, "is a character device", true},
		{"missing", func(t *testing.T, dir string) string { return filepath.Join(dir, "none") }, 0, "no such file", false},
		{"empty name", func(*testing.T, string) string { return "" }, 0, "empty name", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path(t, t.TempDir())
			type res struct {
				data []byte
				err  error
			}
			r := finish(t, func() res {
				d, err := ReadFile(context.Background(), p, tc.max)
				return res{d, err}
			})
			if IsRefused(r.err) != tc.refused {
				t.Fatalf("refused = %v, want %v (err %v)", IsRefused(r.err), tc.refused, r.err)
			}
			if r.err == nil {
				if string(r.data) != tc.want {
					t.Fatalf("read %q, want %q", r.data, tc.want)
				}
				return
			}
			if msg := r.err.Error(); !strings.Contains(strings.ToLower(msg), strings.ToLower(tc.want)) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want one line with %q", msg, tc.want)
			}
		})
	}
}

// TestReadFileCancelled: a cancelled read says why and reads nothing.
func TestReadFileCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errStop)
	if _, err := ReadFile(ctx, p, 0); !errors.Is(err, errStop) {
		t.Fatalf("err = %v, want the context's cause", err)
	}
}

// TestOpenHookBlockingIsCancelled: when the open itself blocks (what a
// blocking open of a FIFO does, or a hung mount), the first ^C still ends
// the read at once.
func TestOpenHookBlockingIsCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	orig := Open
	Open = func(path string) (*os.File, error) { <-release; return orig(path) }
	defer func() { Open = orig }()
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(10*time.Millisecond, func() { cancel(errStop) })
	err := finish(t, func() error { _, err := ReadFile(ctx, p, 0); return err })
	if !errors.Is(err, errStop) {
		t.Fatalf("err = %v, want the context's cause", err)
	}
}

// TestReadAll: standard input is bounded and a ^C ends a read that never
// gets data.
func TestReadAll(t *testing.T) {
	if _, err := ReadAll(context.Background(), "stdin", strings.NewReader("123456"), 5); !IsRefused(err) {
		t.Fatalf("over the limit: err = %v, want a refusal", err)
	}
	d, err := ReadAll(context.Background(), "stdin", strings.NewReader("12345"), 5)
	if err != nil || string(d) != "12345" {
		t.Fatalf("at the limit: %q, %v", d, err)
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(10*time.Millisecond, func() { cancel(errStop) })
	err = finish(t, func() error { _, err := ReadAll(ctx, "stdin", pr, 0); return err })
	if !errors.Is(err, errStop) {
		t.Fatalf("err = %v, want the context's cause", err)
	}
}
