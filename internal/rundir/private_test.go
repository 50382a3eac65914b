package rundir

import (
	"bytes"
	"context"
	"github.com/clydebench/clyde/internal/clydetest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/preflight"
)

// TestPrivateFill: Prepare makes the private directory, writes what the
// level misses in fill files through the writer, records the space before
// and after, and Remove takes it all away, the fill marked removed.
func TestPrivateFill(t *testing.T) {
	dir := t.TempDir()
	s, err := preflight.Stat(dir)
	if err != nil {
		clydetest.Skipf(t, "no space figures here: %v", err)
	}
	const fileSize = 1 << 20
	want := int64(2*fileSize + 300<<10) // three files, the third short
	fill := preflight.Fill{Bytes: int64(s.UsedBytes()) + want, Request: "test"}
	p := &Private{ParentPath: dir, Flag: "--filename", Fill: fill, Command: "clyde block --fill test", Need: 1 << 20, fileSize: fileSize}
	if err := p.CheckFill(); err != nil {
		clydetest.Skipf(t, "no room for %d bytes here: %v", want, err)
	}
	var sizes []int64
	var progress []string
	write := func(_ context.Context, f osio.File, k int, size int64) error {
		sizes = append(sizes, size)
		return osio.PwriteFull(f, bytes.Repeat([]byte{byte(k + 1)}, int(size)), 0)
	}
	if err := p.Prepare(context.Background(), func(s string) { progress = append(progress, s) }, write); err != nil {
		t.Fatal(err)
	}
	f := p.Space.Fill
	if f == nil || int64(f.TargetUsedBytes-f.UsedBeforeBytes) != f.WrittenBytes || f.Files != len(sizes) || len(progress) != len(sizes) {
		t.Fatalf("fill %+v after writes %v and progress %q", f, sizes, progress)
	}
	if len(sizes) == 0 {
		clydetest.Skip(t, "the filesystem reached the fill level by itself meanwhile (another process wrote to it)")
	}
	for _, n := range sizes[:len(sizes)-1] {
		if n != fileSize {
			t.Errorf("fill file sizes %v, want %d but the last", sizes, fileSize)
		}
	}
	if !strings.HasPrefix(progress[0], "filling "+dir+" to test: 0 B of ") {
		t.Errorf("progress %q", progress[0])
	}
	if fi, err := os.Stat(filepath.Join(p.Run.Path, "fill-00000.bin")); err != nil || fi.Size() != sizes[0] {
		t.Errorf("first fill file: %v %v", fi, err)
	}
	if p.FilePath("f") != filepath.Join(p.Run.Path, "f") || p.Space.TotalBytes == 0 {
		t.Errorf("FilePath %s, space %+v", p.FilePath("f"), p.Space)
	}
	if err := p.Remove(); err != nil {
		t.Fatal(err)
	}
	if !f.Removed {
		t.Error("the fill is not marked removed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %d entries", len(entries))
	}
}

// TestPrivateFillReached: a level already reached writes nothing and says
// so; a nil Private prepares and removes nothing.
func TestPrivateFillReached(t *testing.T) {
	dir := t.TempDir()
	p := &Private{ParentPath: dir, Flag: "--filename", Fill: preflight.Fill{Bytes: 1, Request: "1"}, Command: "clyde block"}
	wrote := false
	err := p.Prepare(context.Background(), func(string) {}, func(context.Context, osio.File, int, int64) error { wrote = true; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if wrote || p.Space.Fill == nil || p.Space.Fill.WrittenBytes != 0 || len(p.Notes) == 0 || !strings.Contains(p.Notes[len(p.Notes)-1], "nothing was written") {
		t.Errorf("wrote %v, fill %+v, notes %q", wrote, p.Space.Fill, p.Notes)
	}
	if err := p.Remove(); err != nil {
		t.Fatal(err)
	}
	var none *Private
	if err := errorsOf(none.Prepare(context.Background(), nil, nil), none.Remove()); err != nil {
		t.Errorf("nil Private: %v", err)
	}
}

func errorsOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
