package orion

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/clydebench/clyde/internal/input"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// maxLUNFile bounds what is read of a .lun file: a list of paths, never
// anything near this.
const maxLUNFile = 1 << 20

// LUN is one line of a .lun file: a file or a block device that exists.
type LUN struct {
	Path      string
	SizeBytes int64
}

// ReadLUNs reads T.lun, one file or block device per line as ORION wants
// it (blank lines are skipped; ORION allows no comments). Every problem is a
// usage error naming -testname: a missing or empty file, a LUN that does
// not exist, is a directory or something other than a file or block
// device, or is empty.
//
// The file is read by internal/input: a FIFO or a device is refused without
// blocking, and the first ^C (ctx) ends the wait.
func ReadLUNs(ctx context.Context, testName string) ([]LUN, error) {
	path := testName + ".lun"
	data, err := input.ReadFile(ctx, path, maxLUNFile)
	if err != nil {
		if input.IsRefused(err) {
			return nil, result.Usagef("-testname", "%v; it should list LUNs, one per line", err)
		}
		return nil, result.Usagef("-testname", "%v; list the files or devices to test in it, one per line", err)
	}
	var luns []LUN
	for _, l := range lunLines(data) {
		size, err := lunSize(l.name)
		if err != nil {
			return nil, result.Usagef("-testname", "%s line %d: %s: %v", path, l.line, quotedLUN(l.name), err)
		}
		luns = append(luns, LUN{Path: l.name, SizeBytes: size})
	}
	if len(luns) == 0 {
		return nil, result.Usagef("-testname", "%s lists no LUN; give one file or device per line", path)
	}
	return luns, nil
}

// lunLine is one name of a .lun file and its line number.
type lunLine struct {
	name string
	line int
}

// lunLines splits a .lun file: one name per line, surrounding blanks and a
// DOS line end dropped, blank lines skipped.
func lunLines(data []byte) []lunLine {
	var out []lunLine
	for i, line := range strings.Split(string(data), "\n") {
		if name := strings.TrimSpace(strings.TrimSuffix(line, "\r")); name != "" {
			out = append(out, lunLine{name, i + 1})
		}
	}
	return out
}

// lunSize is the size of an existing regular file or block device; ORION
// tests what is there and clyde creates no LUN.
func lunSize(name string) (int64, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return 0, pathErr(err)
	}
	m := fi.Mode()
	switch {
	case m.IsDir():
		return 0, errors.New("is a directory; list files or block devices")
	case m.IsRegular():
		if fi.Size() == 0 && safepath.KernelFS(name) != "" {
			return 0, fmt.Errorf("is a file of %s, a kernel interface, not a LUN; list files or block devices", safepath.KernelFS(name))
		}
		if fi.Size() == 0 {
			return 0, errors.New("is empty; ORION reads what a LUN holds, so give a file with data in it")
		}
		return fi.Size(), nil
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		f, err := os.Open(name)
		if err != nil {
			return 0, pathErr(err)
		}
		defer f.Close()
		n, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			return 0, fmt.Errorf("size: %w", pathErr(err))
		}
		if n == 0 {
			return 0, errors.New("is a block device of size 0")
		}
		return n, nil
	}
	return 0, errors.New("is neither a regular file nor a block device")
}

func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// quotedLUN is a LUN's name as a message shows it: a plain path as it is,
// anything else not at all, so that a file that is no .lun (/etc/shadow
// given by mistake) is not copied to stderr and logs.
func quotedLUN(name string) string {
	for _, c := range name {
		if !(c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "(a name that is not a plain path, not shown)"
		}
	}
	return name
}
