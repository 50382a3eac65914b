//go:build !linux

package safepath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clydebench/clyde/internal/osio"
)

// Supported says whether the rule is enforced on this platform. It is not
// here: paths resolve as the OS resolves them (symlinks followed), and
// names in a directory are still opened without following a symlink, as
// clyde did before the rule. Ownership of a removed file is checked where
// the platform has owners.
const Supported = false

func kindOfInfo(fi fs.FileInfo) Kind {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return Regular
	case m.IsDir():
		return Directory
	case m&fs.ModeSymlink != 0:
		return Symlink
	case m&fs.ModeNamedPipe != 0:
		return FIFO
	case m&fs.ModeSocket != 0:
		return Socket
	case m&fs.ModeCharDevice != 0:
		return CharDevice
	case m&fs.ModeDevice != 0:
		return BlockDevice
	}
	return 0
}

// Locate resolves path as the OS does (not supported: see Supported).
func Locate(path string) (osio.Dir, Info, error) {
	info := Info{}
	p, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		// The OS's own split: a Windows path has no '/', and joining "."
		// with a path that starts with a drive letter keeps the "." in
		// front, which Abs then puts under the working directory.
		dir, base := filepath.Dir(path), filepath.Base(path)
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			return osio.Dir{}, info, err
		}
		p = filepath.Join(dir, base)
	} else if err != nil {
		return osio.Dir{}, info, err
	}
	if p, err = filepath.Abs(p); err != nil {
		return osio.Dir{}, info, err
	}
	info.Path, info.Name = p, filepath.Base(p)
	if fi, err := os.Stat(p); err == nil {
		info.Exists, info.Kind, info.Size = true, kindOfInfo(fi), fi.Size()
	}
	d, err := osio.OpenDir(filepath.Dir(p))
	return d, info, err
}

// Parent opens the directory of path as the OS resolves it.
func Parent(path string) (osio.Dir, string, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	if base == "" || base == "." || base == ".." || base == string(filepath.Separator) || strings.HasSuffix(path, string(filepath.Separator)) {
		return osio.Dir{}, "", fmt.Errorf("%s does not name a file in a directory", path)
	}
	d, err := osio.OpenDir(dir)
	return d, base, err
}

// OpenDir opens the directory path as the OS resolves it.
func OpenDir(path string) (osio.Dir, error) { return osio.OpenDir(path) }

// Open opens path as the OS resolves it, when it is one of kinds.
func Open(path string, flag osio.Flag, kinds Kind) (osio.File, string, error) {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return osio.NoFile, "", err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return osio.NoFile, "", err
	}
	if k := kindOfInfo(fi); k&kinds == 0 {
		return osio.NoFile, "", &KindError{Path: p, Got: k, Want: kinds}
	}
	f, err := osio.OpenFile(p, flag|osio.NoFollow)
	return f, p, err
}

// OpenIn opens name in d, never through a symlink, when it is one of kinds.
func OpenIn(d osio.Dir, name string, flag osio.Flag, kinds Kind) (osio.File, osio.Entry, error) {
	e, err := d.Lstat(osio.Name(name))
	if err != nil {
		return osio.NoFile, e, err
	}
	k := Kind(0)
	switch {
	case e.Reg:
		k = Regular
	case e.Dir:
		k = Directory
	case e.Link:
		k = Symlink
	case e.Dev:
		k = BlockDevice
	}
	if k&kinds == 0 {
		return osio.NoFile, e, &KindError{Path: d.Path() + string(os.PathSeparator) + name, Got: k, Want: kinds}
	}
	f, err := d.Open(osio.Name(name), flag, 0)
	if err != nil {
		return osio.NoFile, e, err
	}
	if e, err = f.Stat(); err != nil {
		f.Close()
	}
	return f, e, err
}

// ReadLink reads the symlink name in d (not supported: see Supported).
func ReadLink(d osio.Dir, name string) (string, error) {
	return os.Readlink(d.Path() + string(os.PathSeparator) + name)
}
