//go:build !linux

package fsbench

import (
	"io"
	"os"
	"path/filepath"
	"unsafe"
)

// Outside Linux the suite runs on the os package: portable, but the file-churn
// loops allocate a path per operation and O_DIRECT is not offered.

const directSupported = false

type fileHandle struct{ f *os.File }

func openPath(path string, create, _ bool) (fileHandle, error) {
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o600)
	return fileHandle{f}, err
}

func (f fileHandle) write(b []byte) (int, error)               { return f.f.Write(b) }
func (f fileHandle) read(b []byte) (int, error)                { n, err := f.f.Read(b); return n, eofIsNil(err) }
func (f fileHandle) seek(off int64, whence int) (int64, error) { return f.f.Seek(off, whence) }
func (f fileHandle) sync() error                               { return f.f.Sync() }
func (f fileHandle) close() error                              { return f.f.Close() }

func eofIsNil(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

type dirHandle struct{ path string }

func openDirPath(path string) (dirHandle, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return dirHandle{}, err
	}
	if !fi.IsDir() {
		return dirHandle{}, &os.PathError{Op: "open", Path: path, Err: os.ErrInvalid}
	}
	return dirHandle{path: path}, nil
}

func (d dirHandle) join(name []byte) string {
	return filepath.Join(d.path, filepath.FromSlash(string(name[:len(name)-1])))
}

func (d dirHandle) create(name []byte) (fileHandle, error) {
	f, err := os.OpenFile(d.join(name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	return fileHandle{f}, err
}

func (d dirHandle) openRead(name []byte) (fileHandle, error) {
	f, err := os.Open(d.join(name))
	return fileHandle{f}, err
}

func (d dirHandle) openSubdir(name []byte) (dirHandle, error) { return openDirPath(d.join(name)) }
func (d dirHandle) mkdir(name []byte) error                   { return os.Mkdir(d.join(name), 0o700) }

func (d dirHandle) stat(name []byte, _ *statBuf) (int64, error) {
	fi, err := os.Stat(d.join(name))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func (d dirHandle) unlink(name []byte) error { return os.Remove(d.join(name)) }
func (d dirHandle) rmdir(name []byte) error  { return os.Remove(d.join(name)) }
func (d dirHandle) link(oldName, newName []byte) error {
	return os.Link(d.join(oldName), d.join(newName))
}
func (d dirHandle) symlink(target, newName []byte) error {
	return os.Symlink(filepath.FromSlash(string(target[:len(target)-1])), d.join(newName))
}

func (d dirHandle) sync() error {
	f, err := os.Open(d.path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func (d dirHandle) syncFS() error { return syncAll() }
func (d dirHandle) close() error  { return nil }

type dirScanner struct{}

func newDirScanner() *dirScanner { return &dirScanner{} }

func (s *dirScanner) scan(d dirHandle, fn func(name []byte) error) error {
	f, err := os.Open(d.path)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		names, err := f.Readdirnames(1024)
		for _, n := range names {
			if n == "" || n[0] == '.' {
				continue
			}
			if err := fn(append([]byte(n), 0)); err != nil {
				return err
			}
		}
		if err == io.EOF || (err == nil && len(names) == 0) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

type statBuf struct{}

func (f fileHandle) writeByteRaw(b *byte) (int, error) { return f.f.Write(unsafe.Slice(b, 1)) }
func (f fileHandle) readByteRaw(b *byte) (int, error) {
	n, err := f.f.Read(unsafe.Slice(b, 1))
	return n, eofIsNil(err)
}

func (f fileHandle) writeSmall(b []byte) (int, error) { return f.f.Write(b) }
func (f fileHandle) readSmall(b []byte) (int, error) {
	n, err := f.f.Read(b)
	return n, eofIsNil(err)
}
func (f fileHandle) closeSmall() error { return f.f.Close() }
