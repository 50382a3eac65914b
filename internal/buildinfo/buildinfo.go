// Package buildinfo says which clyde made a result and what `clyde
// --version` prints: the version set at release time (go build -ldflags "-X
// github.com/clydebench/clyde/internal/buildinfo.version=1.2.3", as make
// release, make deb and make install do from git describe), else the module
// version the go command stamped (go install ...@v1.2.3, or a pseudo-version
// from the checkout), and the commit and Go toolchain from the binary's
// build info, the same records `go version -m` prints.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// defaultVersion is the version of a build that names none.
const defaultVersion = "0.1.0-dev"

var (
	version = defaultVersion
	commit  = ""
)

// Version is clyde's version.
func Version() string {
	if version != defaultVersion {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && moduleVersion(bi.Main.Version) {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return version
}

// moduleVersion reports whether v is a version the go command stamped: not
// "(devel)", which a build outside version control gets.
func moduleVersion(v string) bool { return v != "" && v != "(devel)" }

// Commit is the VCS revision clyde was built from, "" when unknown.
func Commit() string {
	if commit != "" {
		return commit
	}
	return setting("vcs.revision")
}

// GoVersion is the Go toolchain that built clyde, as `go version -m` names it.
func GoVersion() string { return runtime.Version() }

// setting is one of the build info's settings (vcs.revision, vcs.time,
// vcs.modified, ...), "" when absent.
func setting(key string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// Summary is what `clyde --version` prints: the version, the commit with
// its time and whether the tree had uncommitted changes, and the Go
// version and platform, one per line.
func Summary(name string) string {
	return summary(name, Version(), Commit(), setting("vcs.time"), setting("vcs.modified") == "true", GoVersion(), runtime.GOOS+"/"+runtime.GOARCH)
}

func summary(name, version, commit, commitTime string, modified bool, goVersion, platform string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s version %s\n", name, version)
	switch {
	case commit == "":
		b.WriteString("commit unknown (built outside version control)\n")
	default:
		var notes []string
		if commitTime != "" {
			notes = append(notes, commitTime)
		}
		if modified {
			notes = append(notes, "with uncommitted changes")
		}
		fmt.Fprintf(&b, "commit %s", commit)
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "built with %s %s\n", goVersion, platform)
	return b.String()
}
