//go:build !unix

package outfile

import (
	"errors"
	"io/fs"
	"os"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// writable refuses a file with the read-only attribute; whether a
// directory accepts new files is known only when one is created.
func writable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() && fi.Mode().Perm()&0o200 == 0 {
		return errors.New("read-only")
	}
	return nil
}

func ownDescriptor(string) (int, bool) { return 0, false }

func fdWritable(int) error { return result.ErrNotSupported }

func dupFD(int) (*os.File, error) { return nil, result.ErrNotSupported }

func openInPlace(path string, _ bool) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY, 0)
}

// copyOwner does nothing: a replaced file's owner is the OS's business here.
func copyOwner(*os.File, fs.FileInfo) error { return nil }

// sameDir is true: without the rule (safepath.Supported) there is nothing
// to compare the handle with that the OS did not resolve the same way.
func sameDir(*os.Root, osio.Dir) bool { return true }

// giveToDirOwner does nothing: owners are the OS's business here.
func giveToDirOwner(*os.File, *os.Root) error { return nil }

func rdev(fs.FileInfo) uint64 { return 0 }
