package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBlockDataFlags checks that fio's data-integrity flags reach the run,
// as flags of a single job and as overrides after a job file: each is
// echoed in the JSON's job options by fio's name, and does what it says
// (the verify pass reads every written block back, do_verify=0 skips it,
// fdatasync=4 times fio's count of syncs).
func TestBlockDataFlags(t *testing.T) {
	// fio 3.33 times 15 fdatasyncs for 64 writes at fdatasync=4, with or
	// without fsync_on_close and verify (fio --rw=write --size=256k
	// --fdatasync=4: sync lat_ns N 15): none follows the last write.
	const size, fioSyncs = 256 << 10, 15
	cases := []struct {
		name      string
		args      []string
		jobFile   string // when set, the flags go after this job file
		options   map[string]string
		readBytes int64
		syncs     int64 // sync lat_ns.N
	}{
		{name: "verify crc32c, verify_fatal", args: []string{"--verify", "crc32c", "--verify_fatal"},
			options: map[string]string{"verify": "crc32c", "verify_fatal": "1"}, readBytes: size},
		{name: "verify md5 without its pass", args: []string{"--verify", "md5", "--do_verify=false"},
			options: map[string]string{"verify": "md5", "do_verify": "0"}, readBytes: 0},
		{name: "fdatasync", args: []string{"--fdatasync", "4"},
			options: map[string]string{"fdatasync": "4"}, syncs: fioSyncs},
		{name: "fsync_on_close", args: []string{"--fsync_on_close"},
			options: map[string]string{"fsync_on_close": "1"}},
		{name: "overrides after a job file", jobFile: "[w]\nrw=write\nsize=256k\n",
			args:      []string{"--verify", "md5", "--verify_fatal", "--fdatasync", "4", "--fsync_on_close"},
			options:   map[string]string{"verify": "md5", "verify_fatal": "1", "fdatasync": "4", "fsync_on_close": "1"},
			readBytes: size, syncs: fioSyncs},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "f")
			args := []string{"block"}
			if c.jobFile != "" {
				args = append(args, writeJobFile(t, "[global]\nfilename="+target+"\n"+c.jobFile))
			} else {
				args = append(args, "--filename", target, "--rw", "write", "--size", "256k", "--time_based=false")
			}
			args = append(append(args, c.args...), "--output-format", "json", "--no-history")
			code, out, stderr := runClyde(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			res := decodeBlock(t, out)
			if len(res.Jobs) != 1 {
				t.Fatalf("%d jobs, want 1", len(res.Jobs))
			}
			j := res.Jobs[0]
			o := j.Options
			if c.jobFile != "" {
				o = res.GlobalOptions // fio echoes its command line's options there
			}
			for k, v := range c.options {
				if o.Get(k) != v {
					t.Errorf("option %s=%q, want %q (options %v)", k, o.Get(k), v, o)
				}
			}
			if j.Write.IOBytes != size || j.Read.IOBytes != c.readBytes {
				t.Errorf("wrote %d, read %d bytes; want %d and %d", j.Write.IOBytes, j.Read.IOBytes, size, c.readBytes)
			}
			if c.syncs > 0 && j.Sync.Lat.N != c.syncs {
				t.Errorf("%d syncs timed, want %d", j.Sync.Lat.N, c.syncs)
			}
		})
	}
}

// TestBlockDataFlagRefusals checks the data-integrity flags' refusals: a
// checksum clyde does not build, and a preset, which runs jobs of its own.
func TestBlockDataFlagRefusals(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"fio checksum clyde does not build", []string{"--filename", filepath.Join(dir, "f"), "--rw", "write", "--verify", "sha256"}, "--verify: verify=sha256 is not supported"},
		{"not a checksum", []string{"--filename", filepath.Join(dir, "f"), "--rw", "write", "--verify", "crc"}, "--verify: verify=\"crc\""},
		{"preset", []string{"--filename", dir, "--profile", "cdm", "--verify", "crc32c"}, "--verify: the cdm preset"},
		{"preset fdatasync", []string{"--filename", dir, "--profile", "cdm", "--fdatasync", "2"}, "--fdatasync: the cdm preset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runClyde(t, append([]string{"block"}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
		})
	}
}
