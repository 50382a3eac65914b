// Package buildinfo says which clyde made a result: the version set at
// release time (go build -ldflags "-X
// github.com/clydebench/clyde/internal/buildinfo.version=1.2.3") and the
// commit, from -ldflags or the module's build info.
package buildinfo

import "runtime/debug"

var (
	version = "0.1.0-dev"
	commit  = ""
)

// Version is clyde's version.
func Version() string { return version }

// Commit is the VCS revision clyde was built from, "" when unknown.
func Commit() string {
	if commit != "" {
		return commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}
