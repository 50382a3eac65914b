package fiojob

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
)

// TestDataOptions reads fio's sync and verify options into the workload,
// and refuses the verify options clyde does not build by their names.
func TestDataOptions(t *testing.T) {
	cases := []struct {
		name, opts string
		check      func(w blockbench.Workload) bool
		refused    string // "" when the options are taken
	}{
		{name: "fdatasync", opts: "fdatasync=4\nend_fsync=1", check: func(w blockbench.Workload) bool { return w.Fdatasync == 4 && w.EndFsync }},
		{name: "fdatasync with a unit", opts: "fdatasync=1k", check: func(w blockbench.Workload) bool { return w.Fdatasync == 1024 }},
		{name: "fsync_on_close bare", opts: "fsync_on_close", check: func(w blockbench.Workload) bool { return w.FsyncOnClose }},
		{name: "verify crc32c", opts: "verify=crc32c", check: func(w blockbench.Workload) bool {
			return w.Verify == blockbench.VerifyCRC32C && !w.VerifyFatal && !w.NoVerifyPass && w.JobOptions.Get("verify") == "crc32c"
		}},
		{name: "verify crc32c-intel", opts: "verify=crc32c-intel", check: func(w blockbench.Workload) bool { return w.Verify == blockbench.VerifyCRC32CIntel }},
		{name: "verify md5 fatal", opts: "verify=md5\nverify_fatal=1", check: func(w blockbench.Workload) bool {
			return w.Verify == blockbench.VerifyMD5 && w.VerifyFatal && w.JobOptions.Get("verify_fatal") == "1"
		}},
		{name: "do_verify=0", opts: "verify=md5\ndo_verify=0", check: func(w blockbench.Workload) bool { return w.NoVerifyPass && w.JobOptions.Get("do_verify") == "0" }},
		{name: "verify=0 is none", opts: "verify=0", check: func(w blockbench.Workload) bool { return w.Verify == blockbench.VerifyNone }},
		{name: "rw=trim", opts: "rw=trim", check: func(w blockbench.Workload) bool { return w.RW == blockbench.Trim }},
		{name: "rw=randtrim", opts: "rw=randtrim", check: func(w blockbench.Workload) bool { return w.RW == blockbench.RandTrim && w.RW.Random() }},
		{name: "rw=trimwrite", opts: "rw=trimwrite", check: func(w blockbench.Workload) bool {
			return w.RW == blockbench.TrimWrite && !w.RW.Random() && !w.RW.Reads()
		}},
		{name: "rw=randtrimwrite", opts: "rw=randtrimwrite", check: func(w blockbench.Workload) bool {
			return w.RW == blockbench.RandTrimWrite && w.RW.Random() && w.RW.TrimsThenWrites() && !w.RW.Reads()
		}},
		{name: "trim_percentage", opts: "trim_percentage=10", refused: "option trim_percentage is not supported"},
		{name: "fdatasync negative", opts: "fdatasync=-1", refused: "fdatasync="},
		{name: "verify sha256", opts: "verify=sha256", refused: "verify=sha256 is not supported"},
		{name: "verify unknown", opts: "verify=crc99", refused: "not one of fio's checksums"},
		{name: "verify empty", opts: "verify=", refused: "needs a value"},
		{name: "verify_fatal bad bool", opts: "verify_fatal=yes", refused: "give 0 or 1"},
		{name: "verify_pattern with a checksum", opts: "verify=crc32c\nverify_pattern=0xff", check: func(w blockbench.Workload) bool {
			return w.Verify == blockbench.VerifyCRC32C && string(w.VerifyPattern) == "\xff"
		}},
		{name: "verify_pattern alone is verify=pattern", opts: "verify_pattern=\"ab\"%o", check: func(w blockbench.Workload) bool {
			return w.Verify == blockbench.VerifyPatternOnly && len(w.VerifyPattern) == 10 && len(w.VerifyPatternOffsets) == 1 && w.VerifyPatternOffsets[0] == 2
		}},
		{name: "verify_pattern before verify=", opts: "verify_pattern=1\nverify=md5", check: func(w blockbench.Workload) bool {
			return w.Verify == blockbench.VerifyMD5 && string(w.VerifyPattern) == "\x01"
		}},
		{name: "verify=0 keeps no pattern", opts: "verify=0\nverify_pattern=1", check: func(w blockbench.Workload) bool {
			return w.Verify == blockbench.VerifyNone && w.VerifyPattern == nil
		}},
		{name: "buffer_pattern", opts: "buffer_pattern=0xdeadbeef", check: func(w blockbench.Workload) bool {
			return w.Buffer.Kind == blockbench.BufferPattern && w.Buffer.Pattern == "\xde\xad\xbe\xef"
		}},
		{name: "buffer_pattern wins over zero_buffers", opts: "zero_buffers\nbuffer_pattern=\"x\"", check: func(w blockbench.Workload) bool {
			return w.Buffer.Kind == blockbench.BufferPattern
		}},
		{name: "buffer_pattern fills compressible chunks", opts: "buffer_compress_percentage=50\nbuffer_pattern=7", check: func(w blockbench.Workload) bool {
			return w.Buffer.Kind == blockbench.BufferCompressible && w.Buffer.Pattern == "\x07"
		}},
		{name: "buffer_pattern takes no %o", opts: "buffer_pattern=%o", refused: "buffer_pattern=%o"},
		{name: "a pattern file", opts: "verify_pattern='p'", refused: "names a file"},
		{name: "verify_backlog", opts: "verify=md5\nverify_backlog=1k\nverify_backlog_batch=16", check: func(w blockbench.Workload) bool {
			return w.VerifyBacklog == 1024 && w.VerifyBacklogBatch == 16
		}},
		{name: "verify_async", opts: "verify_async=2", refused: "option verify_async is not supported"},
		{name: "experimental_verify", opts: "verify=md5\nexperimental_verify=1", check: func(w blockbench.Workload) bool {
			return w.Verify == blockbench.VerifyMD5 && w.JobOptions.Get("experimental_verify") == "1"
		}},
		{name: "verify_interval", opts: "verify=md5\nverify_interval=1k", check: func(w blockbench.Workload) bool {
			return w.VerifyInterval == 1024 && w.JobOptions.Get("verify_interval") == "1k"
		}},
		{name: "verify_interval below two headers", opts: "verify_interval=79", refused: "give a whole number from 80"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compile(t, "[a]\nfilename=f\nsize=1m\nrw=write\n"+tc.opts+"\n", nil, nil, Options{})
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), "job.fio:") {
					t.Fatalf("got %v, want a refusal at its line saying %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w := p.Groups[0][0]; !tc.check(w) {
				t.Errorf("workload %+v does not hold %s", w, tc.opts)
			}
		})
	}
}

// TestVerifyClonesNote: fio warns when a verify job's clones write one file,
// not when each has its own.
func TestVerifyClonesNote(t *testing.T) {
	for _, c := range []struct {
		name, text string
		note       bool
	}{
		{"one file", "[v]\nfilename=f\nsize=1m\nrw=write\nverify=crc32c\nnumjobs=2\n", true},
		{"a file each", "[v]\nsize=1m\nrw=write\nverify=crc32c\nnumjobs=2\n", false},
		{"a format without jobnum", "[v]\nfilename_format=data\nsize=1m\nrw=write\nverify=crc32c\nnumjobs=2\n", true},
		{"one clone", "[v]\nfilename=f\nsize=1m\nrw=write\nverify=crc32c\n", false},
		{"no verify pass", "[v]\nfilename=f\nsize=1m\nrw=write\nverify=crc32c\ndo_verify=0\nnumjobs=2\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile(t, c.text, nil, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(strings.Join(p.Notes, "\n"), "multiple writers may overwrite")
			if got != c.note {
				t.Errorf("notes %q: want the multiple-writers note %v", p.Notes, c.note)
			}
		})
	}
}
