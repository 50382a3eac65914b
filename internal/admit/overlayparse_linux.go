//go:build linux

package admit

import (
	"strings"

	"github.com/clydebench/clyde/internal/sysinfo"
)

// parseOverlayLayers reads the layers from an overlay mount's superblock
// options as mountinfo shows them ("rw,lowerdir=a:b,upperdir=c,workdir=d"):
// the upper directory ("" for none) and the lower and data directories,
// each as given at mount time. The kernel escapes a comma, a space, a tab,
// a newline or a backslash in a value as \ooo; within lowerdir a ':'
// separates layers ("::" before the data-only ones) and a backslash makes
// the next character literal.
func parseOverlayLayers(opts string) (upper string, lowers []string) {
	for _, opt := range strings.Split(opts, ",") {
		key, value, ok := strings.Cut(opt, "=")
		if !ok {
			continue
		}
		value = sysinfo.UnescapeOctal(value)
		switch key {
		case "upperdir":
			upper = value
		case "lowerdir":
			lowers = append(lowers, splitLowerdir(value)...)
		case "lowerdir+", "datadir+":
			if value != "" {
				lowers = append(lowers, value)
			}
		}
	}
	return upper, lowers
}

// splitLowerdir splits overlayfs's lowerdir list on the colons no
// backslash escapes, dropping the empty entry "::" leaves.
func splitLowerdir(s string) []string {
	var dirs []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case c == ':':
			if cur.Len() > 0 {
				dirs = append(dirs, cur.String())
			}
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		dirs = append(dirs, cur.String())
	}
	return dirs
}

// parseOverlayFH reads the file handle overlayfs stores in a copied-up
// file's "overlay.origin" attribute (struct ovl_fb: version, magic 0xfb,
// total length, flags, the handle's type, the layer's UUID, then the
// handle itself): the type and bytes open_by_handle_at takes.
func parseOverlayFH(b []byte) (int32, []byte, bool) {
	const header = 21
	if len(b) <= header || b[1] != 0xfb || int(b[2]) != len(b) {
		return 0, nil, false
	}
	return int32(b[4]), b[header:], true
}
