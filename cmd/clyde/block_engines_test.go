package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBlockIOEngineFlag runs fio's null, mmap and posixaio from
// --ioengine: each runs as itself and the JSON's job options name it; null
// needs no --filename and leaves nothing behind; posixaio says on stderr
// what it is.
func TestBlockIOEngineFlag(t *testing.T) {
	for _, c := range []struct {
		engine, stderr string
		file           bool
	}{
		{"null", "", false},
		{"mmap", "", true},
		{"posixaio", "glibc's POSIX AIO model rebuilt in Go", true},
	} {
		t.Run(c.engine, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"block", "--ioengine", c.engine, "--size", "1m", "--rw", "randread", "--iodepth", "4",
				"--runtime", "200ms", "--output-format=json", "--no-history"}
			if c.file {
				args = append(args, "--filename", filepath.Join(dir, "f.dat"))
			}
			code, out, stderr := runClyde(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			res := decodeBlock(t, out)
			j := res.Jobs[0]
			if j.Options.Get("ioengine") != c.engine || j.Read.IOBytes == 0 {
				t.Errorf("ran %q, read %d bytes; want %s reading", j.Options.Get("ioengine"), j.Read.IOBytes, c.engine)
			}
			if c.stderr != "" && !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q, want it to say %q", stderr, c.stderr)
			}
			if !c.file && res.Target.Kind != "null" {
				t.Errorf("target %+v, want null", res.Target)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the run left %v", ents)
			}
		})
	}
}
