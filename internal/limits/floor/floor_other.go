//go:build unix && !linux

package floor

// read knows only the open files limit here: RLIMIT_AS is Linux's to
// check (macOS does not enforce it).
func read() Facts {
	var f Facts
	readFiles(&f)
	return f
}
