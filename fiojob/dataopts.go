package fiojob

import (
	"fmt"
	"math"
	"slices"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio's data-integrity options: fdatasync, fsync_on_close and verify with
// verify_fatal and do_verify (blockbench's syncopts.go and verify.go say how
// each runs and is counted as fio counts it).

// fioVerifyKinds are every verify= value fio 3.33 takes (options.c), so one
// clyde does not build is refused by its name rather than as unknown.
var fioVerifyKinds = []string{"md5", "crc64", "crc32", "crc32c", "crc32c-intel", "crc16", "crc7", "sha1", "sha256",
	"sha512", "sha3-224", "sha3-256", "sha3-384", "sha3-512", "xxhash", "meta", "pattern", "pattern_hdr", "null"}

// dataRefusals are fio's verify and trim options clyde does not build.
var dataRefusals = map[string]string{
	"verify_async":       "clyde verifies on the worker's own thread, fio's default",
	"verify_async_cpus":  "clyde verifies on the worker's own thread, fio's default",
	"verify_offset":      "clyde writes the header at the start of each block (fio's default verify_offset=0)",
	"verify_only":        "clyde verifies the blocks it wrote in the same run",
	"verify_state_save":  "clyde keeps no verify state between runs",
	"verify_state_load":  "clyde keeps no verify state between runs",
	"verifysort":         "clyde reads the blocks back in offset order",
	"trim_percentage":    "clyde does not trim a share of written blocks; give rw=trim or randtrim on a block device",
	"trim_verify_zero":   "clyde does not verify trimmed blocks",
	"trim_backlog":       "clyde does not trim a share of written blocks",
	"trim_backlog_batch": "clyde does not trim a share of written blocks",
}

// dataHandlers are the handlers of fio's data-integrity options.
func dataHandlers() map[string]handler {
	return map[string]handler{
		"fdatasync":      func(j *job, o Option) error { return j.intIn(o, 0, math.MaxInt32, &j.w.Fdatasync) },
		"fsync_on_close": func(j *job, o Option) error { return boolean(o, &j.w.FsyncOnClose) },
		"verify":         (*job).verify,
		"verify_fatal": func(j *job, o Option) error {
			if err := boolean(o, &j.w.VerifyFatal); err != nil {
				return err
			}
			return nil
		},
		"verify_pattern": func(j *job, o Option) error { return j.pattern(o, true) },
		"buffer_pattern": func(j *job, o Option) error { return j.pattern(o, false) },
		"verify_backlog": func(j *job, o Option) error {
			var n int64
			if err := j.size(o, &n); err != nil {
				return err
			}
			j.w.VerifyBacklog = n
			return nil
		},
		"verify_backlog_batch": func(j *job, o Option) error { return j.intIn(o, 0, math.MaxInt32, &j.w.VerifyBacklogBatch) },
		// fio's minimum is two headers' worth (options.c minval).
		"verify_interval": func(j *job, o Option) error {
			var n int
			if err := j.intIn(o, 80, math.MaxInt32, &n); err != nil {
				return err
			}
			j.w.VerifyInterval = int64(n)
			return nil
		},
		"verify_dump": func(j *job, o Option) error { return boolean(o, &j.verifyDump) },
		"do_verify": func(j *job, o Option) error {
			var b bool
			if err := boolean(o, &b); err != nil {
				return err
			}
			j.w.NoVerifyPass = !b
			return nil
		},
	}
}

// addDataOptions registers the data-integrity options beside the others.
func addDataOptions() {
	for k, h := range dataHandlers() {
		handlers[k] = h
	}
	for k, why := range dataRefusals {
		refusals[k] = why
	}
}

// verify reads fio's verify=: the checksums clyde builds, 0 for none.
func (j *job) verify(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	v, err := ParseVerifyFlag(o.Pos, o.Value)
	if err != nil {
		return err
	}
	j.w.Verify = v
	return nil
}

// ParseVerifyFlag reads a verify= value as fio names it, for a job file's
// line or clyde block's --verify (pos): the checksums clyde builds, 0 for
// none; fio's other checksums are refused by name.
func ParseVerifyFlag(pos, value string) (blockbench.VerifyKind, error) {
	switch v := blockbench.VerifyKind(value); {
	case value == "0":
		return blockbench.VerifyNone, nil
	case slices.Contains(blockbench.VerifyKinds, v):
		return v, nil
	case slices.Contains(fioVerifyKinds, value):
		return "", result.Usagef(pos, "verify=%s is not supported: clyde builds verify=crc32c, crc32c-intel, md5, meta and pattern", value)
	default:
		return "", result.Usagef(pos, "verify=%q is not one of fio's checksums; clyde builds crc32c, crc32c-intel, md5, meta and pattern", value)
	}
}

// verifyNotes is fio's warning for a verify job whose clones write one file
// (init.c): each clone checks the blocks it wrote, which another clone may
// have overwritten since.
func (j *job) verifyNotes(w blockbench.Workload) []string {
	if w.Verify == blockbench.VerifyNone || w.NoVerifyPass || w.NumJobs < 2 || (j.ownFiles && j.fileFor(0, 0) != j.fileFor(1, 0)) {
		return nil
	}
	return []string{fmt.Sprintf("job %s: multiple writers may overwrite blocks that belong to other jobs. This can cause verification failures (fio warns the same)", j.sec.Name)}
}

// pattern reads fio's buffer_pattern or verify_pattern (pattern.go);
// verify says %o, the block's offset, may be in it.
func (j *job) pattern(o Option, verify bool) error {
	if err := needValue(o); err != nil {
		return err
	}
	p, offsets, err := parsePattern(o.Value, verify)
	if err != nil {
		return result.Usagef(o.Pos, "%s=%s: %v; give hexadecimal (0xdeadbeef), a quoted string (\"abc\"), a decimal number or a run of them%s", o.Name, o.Value, err,
			map[bool]string{true: ", with %o for the block's offset", false: ""}[verify])
	}
	if verify {
		j.verifyPattern, j.verifyOffsets = p, offsets
	} else {
		j.bufferPattern = string(p)
	}
	return nil
}

// finishData resolves the data options that depend on others: fio's
// buffer_pattern wins over zero_buffers and fills the compressible part
// of buffer_compress_percentage (io_u.c fill_io_buffer); verify_pattern
// is verify=pattern unless verify= is given (options.c
// str_verify_pattern_cb), and the data of the blocks any verify writes.
func (j *job) finishData(w *blockbench.Workload) {
	if j.bufferPattern != "" {
		w.Buffer.Pattern = j.bufferPattern
		if w.Buffer.Kind != blockbench.BufferCompressible {
			w.Buffer.Kind = blockbench.BufferPattern
		}
	}
	if j.verifyPattern == nil {
		return
	}
	if _, given := j.set["verify"]; !given {
		w.Verify = blockbench.VerifyPatternOnly
	}
	if w.Verify != blockbench.VerifyNone {
		w.VerifyPattern, w.VerifyPatternOffsets = j.verifyPattern, j.verifyOffsets
	}
}

// dumpNote says what of verify_dump clyde does not: the files.
func (j *job) dumpNote(w blockbench.Workload) []string {
	if !j.verifyDump || w.Verify == blockbench.VerifyNone || w.NoVerifyPass {
		return nil
	}
	return []string{"job " + j.sec.Name + ": verify_dump=1: fio writes a bad block's data to FILE.OFFSET.received and .expected in its working directory; clyde names the bad block's offset and what it expected in its error and writes no file (it writes only the outputs named before the run)"}
}
