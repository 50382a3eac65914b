package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// TODO(internal/outfile): this is a minimal local copy of the output-file
// rules for clyde copy's --json; switch it to internal/outfile when that
// package lands, and drop this file.

// outputFile is an output path the user named, checked before the run: a
// regular file (or a new name) is replaced atomically, through a temporary
// file in the same directory renamed by the directory's descriptor; a
// device, FIFO or "-" (stdout) is written in place.
type outputFile struct {
	flag, path string
	inPlace    bool
	stdout     io.Writer // for "-"
}

// checkOutputFile classifies path and refuses, as a usage error naming
// flag, what clyde will not write: a directory, a missing parent, or a
// symlink to a regular file (replacing it would replace the symlink;
// following it would write where the user did not name).
func checkOutputFile(flag, path string, stdout io.Writer) (*outputFile, error) {
	o := &outputFile{flag: flag, path: path}
	if path == "-" {
		o.inPlace, o.stdout = true, stdout
		return o, nil
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(path)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, result.Usagef(flag, "cannot write %s: %s is not a directory", path, dir)
		}
		return o, nil
	case err != nil:
		return nil, result.Usagef(flag, "%v", err)
	case fi.Mode().IsRegular():
		return o, nil
	case fi.IsDir():
		return nil, result.Usagef(flag, "%s is a directory; name a file", path)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Stat(path)
		switch {
		case err != nil:
			return nil, result.Usagef(flag, "%s is a symlink that leads nowhere: %v", path, err)
		case target.Mode().IsRegular() || target.IsDir():
			return nil, result.Usagef(flag, "%s is a symlink; name the file itself", path)
		}
	}
	o.inPlace = true // a device, FIFO or socket, or a symlink to one (/dev/stdout)
	return o, nil
}

// write writes what fn produces to the output.
func (o *outputFile) write(fn func(io.Writer) error) error {
	if err := o.writeErr(fn); err != nil {
		return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
	}
	return nil
}

func (o *outputFile) writeErr(fn func(io.Writer) error) error {
	if o.stdout != nil {
		return fn(o.stdout)
	}
	if o.inPlace {
		f, err := os.OpenFile(o.path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		err = fn(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	d, err := osio.OpenDir(filepath.Dir(o.path))
	if err != nil {
		return err
	}
	defer d.Close()
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	base := filepath.Base(o.path)
	tmp := osio.Name("." + base + "." + hex.EncodeToString(rnd[:]) + ".tmp")
	f, err := d.Open(tmp, osio.WriteOnly|osio.Create, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.Rename(tmp, osio.Name(base))
	}
	if err != nil {
		_ = d.Remove(tmp)
		return err
	}
	_ = d.Sync()
	return nil
}
