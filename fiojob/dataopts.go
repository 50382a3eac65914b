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
	"verify_backlog":       "clyde verifies after the write pass (fio's default), not while writing",
	"verify_backlog_batch": "clyde verifies after the write pass (fio's default), not while writing",
	"verify_async":         "clyde verifies on the worker's own thread, fio's default",
	"verify_async_cpus":    "clyde verifies on the worker's own thread, fio's default",
	"verify_pattern":       "clyde fills verified blocks with random data from each block's seed; give verify=crc32c or md5",
	"verify_interval":      "clyde writes one header per block (fio's default verify_interval=bs)",
	"verify_offset":        "clyde writes the header at the start of each block (fio's default verify_offset=0)",
	"verify_only":          "clyde verifies the blocks it wrote in the same run",
	"verify_dump":          "clyde names a bad block's offset and checksums but writes no dump files",
	"verify_state_save":    "clyde keeps no verify state between runs",
	"verify_state_load":    "clyde keeps no verify state between runs",
	"verifysort":           "clyde reads the blocks back in offset order",
	"trim_percentage":      "clyde does not trim a share of written blocks; give rw=trim or randtrim on a block device",
	"trim_verify_zero":     "clyde does not verify trimmed blocks",
	"trim_backlog":         "clyde does not trim a share of written blocks",
	"trim_backlog_batch":   "clyde does not trim a share of written blocks",
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
		return "", result.Usagef(pos, "verify=%s is not supported: clyde builds verify=crc32c, crc32c-intel and md5", value)
	default:
		return "", result.Usagef(pos, "verify=%q is not one of fio's checksums; clyde builds crc32c, crc32c-intel and md5", value)
	}
}

// verifyNotes is fio's warning for a verify job whose clones write one file
// (init.c): each clone checks the blocks it wrote, which another clone may
// have overwritten since.
func (j *job) verifyNotes(w blockbench.Workload) []string {
	if w.Verify == blockbench.VerifyNone || w.NoVerifyPass || w.NumJobs < 2 || (j.ownFiles && j.fileFor(0) != j.fileFor(1)) {
		return nil
	}
	return []string{fmt.Sprintf("job %s: multiple writers may overwrite blocks that belong to other jobs. This can cause verification failures (fio warns the same)", j.sec.Name)}
}
