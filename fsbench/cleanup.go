package fsbench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// privateDirPattern matches only the names makePrivateDir produces.
var privateDirPattern = regexp.MustCompile(`^clyde\.[0-9]+\.[0-9a-f]{8}$`)

// Cleanup removes what killed runs left in dir: private directories that
// carry clyde's marker and whose process is gone. It never touches anything
// else, and skips a directory whose run is still alive on this host.
func Cleanup(dir string) (removed []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cleanup: %w", err)
	}
	host, _ := os.Hostname()
	for _, e := range entries {
		if !privateDirPattern.MatchString(e.Name()) || !e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		m, ok := readMarker(filepath.Join(path, MarkerName))
		if !ok {
			continue
		}
		if m.Host == host && processAlive(m.PID) {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			return removed, fmt.Errorf("cleanup: remove %s: %w", path, err)
		}
		removed = append(removed, path)
	}
	return removed, nil
}

func readMarker(path string) (marker, bool) {
	var m marker
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return m, false
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &m) != nil || m.Tool != "clyde" {
		return m, false
	}
	return m, true
}
