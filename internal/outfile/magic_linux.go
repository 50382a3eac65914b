//go:build linux

package outfile

import (
	"regexp"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/safepath"
)

// fdDir matches a process's descriptor directory, whose links name open
// files ("pipe:[123]") rather than paths.
var fdDir = regexp.MustCompile(`^/proc/[0-9]+/(task/[0-9]+/)?fd$`)

// magicLink reports whether p is a link in a /proc/PID/fd directory, with
// that directory resolved by the path rule: only the kernel can follow it.
func magicLink(p string) (string, bool) {
	d, name, err := safepath.Parent(p)
	if err != nil {
		return "", false
	}
	defer d.Close()
	e, err := d.Lstat(osio.Name(name))
	if err != nil || !e.Link || !fdDir.MatchString(d.Path()) || pseudoFS(d) != "procfs" {
		return "", false
	}
	return d.Path() + "/" + name, true
}

// pseudoFS names the kernel-interface filesystem d is on, "" for one
// that holds files.
func pseudoFS(d osio.Dir) string { return safepath.KernelFS(d.Path()) }
