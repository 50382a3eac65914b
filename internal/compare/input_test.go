package compare

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
	"github.com/clydebench/clyde/result"
)

// errStop is the cause a test cancels its context with, as the CLI's ^C does.
var errStop = errors.New("interrupted")

// TestInputRefuses: what compare and report refuse to read, each with one
// line, quickly, without reading more than the limit.
func TestInputRefuses(t *testing.T) {
	ext4, err := os.ReadFile(dir + "bonnie-2.00a-ext4.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(ext4), "\n")
	// The text report alone (its CSV line is the last line).
	text := strings.Join(lines[:10], "\n") + "\n"
	tests := []struct {
		name string
		// arg makes the input in tmp and returns the argument.
		arg  func(t *testing.T, tmp string) string
		max  int64
		want string
		// usage is set for input of the wrong kind, refused as a usage
		// error (exit 2); content that is no result is exit 1.
		usage bool
	}{
		{"empty file", write(""), 0, "is empty", false},
		{"white space only", write(" \n\t\n"), 0, "is empty", false},
		{"directory", func(t *testing.T, tmp string) string { return tmp }, 0, "is a directory", true},
		{"FIFO", func(t *testing.T, tmp string) string {
			return mkfifo(t, filepath.Join(tmp, "fifo"))
		}, 0, "is a FIFO, not a regular file", true},
		{"symlink to /dev/zero", func(t *testing.T, tmp string) string {
			p := filepath.Join(tmp, "r.json")
			if err := os.Symlink("/dev/zero", p); err != nil {
				clydetest.Skip(t, err)
			}
			return p
		}, 0, "is a character device", true},
		{"over the limit", write(strings.Repeat("1.98,2.00a,x\n", 100)), 1000, "over the 1000 bytes limit", true},
		{"over the default limit", func(t *testing.T, tmp string) string {
			p := filepath.Join(tmp, "big.csv")
			f, _ := os.Create(p)
			f.Truncate(MaxInputBytes + 1) // sparse: costs no disk
			f.Close()
			return p
		}, 0, "over the 64 MiB limit", true},
		{"block result with no jobs", write(`{"kind":"block","schema_version":1}`), 0, "no jobs", false},
		{"block result whose jobs did no I/O", write(`{"kind":"block","schema_version":1,"jobs":[{"jobname":"a"}]}`), 0, "no job did any I/O", false},
		{"fs result with no runs", write(`{"kind":"fs","schema_version":1}`), 0, "no runs", false},
		{"fs result whose run ran nothing", write(`{"kind":"fs","schema_version":1,"runs":[{}]}`), 0, "no test that ran", false},
		{"text cut after the header", write(strings.Join(lines[:3], "\n")), 0, "no data line", false},
		{"text cut before the data line", write(strings.Join(lines[:3], "\n") + "\n\n"), 0, "no data line", false},
		{"text cut in the data line", write(strings.Join(lines[:3], "\n") + "\n" + lines[3][:50] + "\n" + lines[4] + "\n"), 0, "before its seeks figure", false},
		{"text cut before the Latency line", write(strings.Join(lines[:4], "\n") + "\n"), 0, "no Latency line", false},
		{"text cut in the Latency line", write(strings.Join(lines[:4], "\n") + "\n" + lines[4][:40] + "\n"), 0, "Latency line ends before", false},
		{"text cut in the file section", write(strings.Join(lines[:8], "\n") + "\n"), 0, "no data line", false},
		{"text cut in the file data line", write(strings.Join(lines[:8], "\n") + "\n" + lines[8][:40] + "\n" + lines[9] + "\n"), 0, "before its ran_del figure", false},
		{"stdin given twice", func(t *testing.T, tmp string) string { return "-" }, 0, "given twice", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			arg := tc.arg(t, t.TempDir())
			in := &Input{MaxBytes: tc.max, Stdin: strings.NewReader(text)}
			if tc.name == "stdin given twice" {
				if _, err := in.Load(context.Background(), "-"); err != nil {
					t.Fatalf("first -: %v", err)
				}
			}
			done := make(chan error, 1)
			go func() {
				_, err := in.Load(context.Background(), arg)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line saying %q", err, tc.want)
				}
				if result.IsUsage(err) != tc.usage {
					t.Fatalf("err %q: usage error %v, want %v", err, result.IsUsage(err), tc.usage)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Load blocked")
			}
		})
	}
	t.Run("the complete text is read", func(t *testing.T) {
		runs, err := (&Input{}).Load(context.Background(), write(text)(t, t.TempDir()))
		if err != nil || len(runs) != 1 {
			t.Fatalf("%d runs, %v", len(runs), err)
		}
	})
}

// write returns an arg func that writes data to a file and names it.
func write(data string) func(t *testing.T, tmp string) string {
	return func(t *testing.T, tmp string) string {
		p := filepath.Join(tmp, "input")
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// TestStdin reads runs from standard input, refuses more than the limit,
// and gives up at the first ^C while standard input sends nothing.
func TestStdin(t *testing.T) {
	csv, err := os.ReadFile(dir + "bonnie-2.00a-lines.csv")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := (&Input{Stdin: strings.NewReader(string(csv))}).Load(context.Background(), "-")
	if err != nil || len(runs) != 10 || runs[0].Label != "stdin:1" {
		t.Fatalf("stdin: %d runs, %v", len(runs), err)
	}
	if _, err := (&Input{Stdin: strings.NewReader(string(csv)), MaxBytes: 100}).Load(context.Background(), "-"); err == nil ||
		!strings.Contains(err.Error(), "over the 100 bytes limit") {
		t.Fatalf("oversize stdin: %v", err)
	}
	if _, err := (&Input{Stdin: strings.NewReader("\n")}).Load(context.Background(), "-"); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Fatalf("empty stdin: %v", err)
	}
	if _, err := (&Input{}).Load(context.Background(), "-"); err == nil || !strings.Contains(err.Error(), "no standard input") {
		t.Fatalf("no stdin: %v", err)
	}
	r, w := io.Pipe() // a writer that never writes: a terminal nobody types in
	defer w.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := (&Input{Stdin: r}).Load(ctx, "-")
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel(errStop)
	select {
	case err := <-done:
		if !errors.Is(err, errStop) {
			t.Fatalf("after ^C: %v, want the interrupt", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first ^C did not stop reading stdin")
	}
}

// FuzzStdin covers the standard-input path: any bytes, under any limit,
// give runs or a one-line error, and nothing over the limit is accepted.
func FuzzStdin(f *testing.F) {
	for _, n := range []string{"bonnie-2.00a-ext4.txt", "bonnie-2.00a-lines.csv"} {
		b, err := os.ReadFile(dir + n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, int64(0))
		f.Add(b[:len(b)/2], int64(0))
		f.Add(b, int64(len(b)-1))
	}
	f.Add([]byte(`{"kind":"block","schema_version":1}`), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, max int64) {
		if max < 0 {
			max = -max
		}
		in := &Input{Stdin: strings.NewReader(string(data)), MaxBytes: max % (1 << 20)}
		_, err := in.Load(context.Background(), "-")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if in.MaxBytes > 0 && int64(len(data)) > in.MaxBytes {
			t.Fatalf("%d bytes accepted over a limit of %d", len(data), in.MaxBytes)
		}
	})
}
