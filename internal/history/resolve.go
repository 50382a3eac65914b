package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/clydebench/clyde/internal/safepath"
)

// maxMissing bounds how many missing directories a new history's path may
// have on its way.
const maxMissing = 64

// resolve turns the --db path into the one SQLite opens, resolved by
// clyde's path rule (internal/safepath): another user's symlink is not
// followed into someone else's file and ".." is the real parent, so the
// path SQLite gets has no symlink left to follow. Missing directories at
// the end of the path are kept as names (Open makes them); ".." among them
// is refused, since it has no real parent yet. SQLite's side files beside
// an existing database must be regular files, not symlinks it would follow.
func resolve(path string) (string, error) {
	var rest []string
	p := path
	for range maxMissing {
		info, err := safepath.Lookup(p)
		switch {
		case err == nil && info.Dangling:
			return "", fmt.Errorf("history %s is a symlink to a missing file", path)
		case err == nil && !info.Exists:
			return filepath.Join(append([]string{info.Path}, rest...)...), nil
		case err == nil && len(rest) > 0 && info.Kind != safepath.Directory:
			return "", fmt.Errorf("history %s cannot be created: %s is not a directory", path, info.Path)
		case err == nil && len(rest) > 0:
			return filepath.Join(append([]string{info.Path}, rest...)...), nil
		case err == nil && info.Kind != safepath.Regular:
			return "", fmt.Errorf("history %s is not a regular file (a %s)", path, info.Kind)
		case err == nil:
			return info.Path, checkSideFiles(path, info.Path)
		case !absent(err):
			return "", fmt.Errorf("history %s: %w", path, err)
		}
		i := strings.LastIndexByte(p, '/')
		base := p[i+1:]
		if i < 0 || base == ".." || base == "." || base == "" {
			return "", fmt.Errorf("history %s cannot be created: no directory on its path exists", path)
		}
		rest = append([]string{base}, rest...)
		p = p[:i]
		if p == "" {
			p = "/"
		}
	}
	return "", fmt.Errorf("history %s cannot be created: more than %d missing directories", path, maxMissing)
}

// checkSideFiles refuses a -wal, -shm or -journal beside the database that
// is not a regular file: SQLite opens them by name, following a symlink.
func checkSideFiles(given, db string) error {
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		fi, err := os.Lstat(db + suffix)
		if err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("history %s: %s%s is not a regular file (%s); SQLite would follow it", given, db, suffix, fi.Mode().Type())
		}
	}
	return nil
}
