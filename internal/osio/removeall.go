package osio

import (
	"errors"
	"io/fs"
)

// RemoveAll removes name in d and, when it is a directory, everything in it,
// one entry at a time through descriptors: a symlink anywhere below is
// removed, never followed. (Go's os.RemoveAll also fails on non-empty
// directories under Wine; removing entry by entry works everywhere.) A
// missing name is not an error.
func (d Dir) RemoveAll(name []byte) error {
	e, err := d.Lstat(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if e.Dir && !e.Link { // a Windows junction is both: removed, not entered
		sub, err := d.OpenSubdir(name)
		if err != nil {
			return err
		}
		err = sub.removeContents()
		if cerr := sub.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	if err := d.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// removeContents empties d, one entry at a time. An entry that is listed
// but cannot be found is on its way out (Windows: deleted while open
// elsewhere, "delete pending"); a pass that finds only such entries ends,
// and the removal of d waits for them (Dir.Remove), rather than this loop
// spinning on them.
func (d Dir) removeContents() error {
	for {
		names, err := d.ReadNames()
		if err != nil {
			return err
		}
		removed := 0
		for _, n := range names {
			if _, err := d.Lstat(Name(n)); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err := d.RemoveAll(Name(n)); err != nil {
				return err
			}
			removed++
		}
		if removed == 0 {
			return nil
		}
	}
}
