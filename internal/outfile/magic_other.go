//go:build !linux

package outfile

import "github.com/clydebench/clyde/internal/osio"

// magicLink is false: only Linux's procfs has links that are not paths.
func magicLink(string) (string, bool) { return "", false }

// pseudoFS is "": kernel-interface filesystems are Linux's.
func pseudoFS(osio.Dir) string { return "" }
