// Package scripts holds the tests of clyde's installing and packaging
// (make install, make deb, make release), which drive the Makefile as a
// user does.
package scripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// runMake runs make in the repository with extra variables.
func runMake(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		clydetest.Skip(t, "make is not installed")
	}
	cmd := exec.Command("make", append([]string{"-C", "..", "--no-print-directory"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// filesUnder lists the regular files under dir, relative to it.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// dirsUnder lists the directories under dir, relative to it.
func dirsUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestInstallUninstall installs into a DESTDIR under a PREFIX, checks the
// binary, a man page for every command and the three completions, then
// uninstalls and checks nothing is left: no file, and no directory but the
// one that was there before the install (zsh's site-functions, as
// zsh-common makes it under /usr/local), which stays.
func TestInstallUninstall(t *testing.T) {
	dest := t.TempDir()
	stage := filepath.Join(t.TempDir(), "stage")
	vars := []string{"DESTDIR=" + dest, "PREFIX=/opt/clyde", "STAGE=" + stage}
	theirs := "opt/clyde/share/zsh/site-functions"
	if err := os.MkdirAll(filepath.Join(dest, theirs), 0o755); err != nil {
		t.Fatal(err)
	}
	runMake(t, append([]string{"install"}, vars...)...)
	// a second install (an upgrade) creates nothing and forgets nothing
	runMake(t, append([]string{"install"}, vars...)...)
	files := filesUnder(t, dest)
	for _, want := range []string{
		"opt/clyde/bin/clyde", "opt/clyde/share/man/man1/clyde.1", "opt/clyde/share/man/man1/clyde-fs.1",
		"opt/clyde/share/man/man1/clyde-block.1", "opt/clyde/share/bash-completion/completions/clyde",
		"opt/clyde/share/zsh/site-functions/_clyde", "opt/clyde/share/fish/vendor_completions.d/clyde.fish",
	} {
		if !slices.Contains(files, want) {
			t.Errorf("make install put no %s in DESTDIR; it has %v", want, files)
		}
	}
	out, err := exec.Command(filepath.Join(dest, "opt/clyde/bin/clyde"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "clyde version ") || !strings.Contains(string(out), "\ncommit ") {
		t.Errorf("installed clyde --version: %v: %q", err, out)
	}
	runMake(t, append([]string{"uninstall"}, vars...)...)
	if left := filesUnder(t, dest); len(left) > 0 {
		t.Errorf("make uninstall left %v", left)
	}
	if left, want := strings.Join(dirsUnder(t, dest), " "), "opt opt/clyde opt/clyde/share opt/clyde/share/zsh "+theirs; left != want {
		t.Errorf("make uninstall left the directories %q, want only %q, which was there before, and its parents", left, want)
	}
}

// TestReleaseReproducible builds one release target twice and compares the
// bytes, and checks the SHA-256 sums file. make release does four targets;
// the test does this machine's, whose compiled packages the other tests
// have cached already (a cold cross-build of clyde takes minutes on a
// 2-core machine): what it checks is that the flags leave nothing in the
// binary that differs between two builds (build IDs, paths, times).
func TestReleaseReproducible(t *testing.T) {
	if testing.Short() {
		clydetest.Skip(t, "builds clyde twice")
	}
	if runtime.GOOS != "linux" {
		clydetest.Skip(t, "make release runs on Linux")
	}
	a, b := t.TempDir(), t.TempDir()
	platform := runtime.GOOS + "/" + runtime.GOARCH
	runMake(t, "release", "RELEASE_PLATFORMS="+platform, "DIST="+a)
	runMake(t, "release", "RELEASE_PLATFORMS="+platform, "DIST="+b)
	names := filesUnder(t, a)
	slices.SortFunc(names, func(x, y string) int { return strings.Compare(strings.ToLower(x), strings.ToLower(y)) }) // the binary first
	if len(names) != 2 || names[1] != "SHA256SUMS" || !strings.HasSuffix(names[0], "-"+runtime.GOOS+"-"+runtime.GOARCH) {
		t.Fatalf("make release wrote %v, want clyde-VERSION-%s-%s and SHA256SUMS", names, runtime.GOOS, runtime.GOARCH)
	}
	for _, n := range names {
		x, err1 := os.ReadFile(filepath.Join(a, n))
		y, err2 := os.ReadFile(filepath.Join(b, n))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two builds of one commit (%v, %v)", n, err1, err2)
		}
	}
	if _, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command("sha256sum", "-c", "SHA256SUMS")
		cmd.Dir = a
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, out)
		}
	}
	// static: an ELF with no interpreter (no dynamic loader, no libc)
	bin, _ := os.ReadFile(filepath.Join(a, names[0]))
	if !bytes.HasPrefix(bin, []byte("\x7fELF")) || bytes.Contains(bin, []byte("/lib/ld-linux")) {
		t.Errorf("%s is not a static ELF binary", names[0])
	}
}

// dpkgFiles lists the regular files and symlinks dpkg -L names for clyde.
func dpkgFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("dpkg", "-L", "clyde").Output()
	if err != nil {
		return nil // not installed
	}
	var files []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if fi, err := os.Lstat(l); err == nil && !fi.IsDir() {
			files = append(files, l)
		}
	}
	return files
}

// TestDebInstallRemove builds the package, installs it with dpkg -i, runs
// the installed clyde, its man page and its bash completion, removes it
// with dpkg -r, and checks that every file dpkg -L listed is gone. It needs
// root and dpkg (CI); it always removes the package again.
func TestDebInstallRemove(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "dpkg -i needs root")
	}
	for _, tool := range []string{"dpkg", "dpkg-deb", "man"} {
		if _, err := exec.LookPath(tool); err != nil {
			clydetest.Skipf(t, "%s is not installed", tool)
		}
	}
	if err := exec.Command("dpkg", "-s", "clyde").Run(); err == nil {
		clydetest.Skip(t, "a clyde package is installed on this machine already; not replacing it")
	}
	out := t.TempDir()
	t.Setenv("DEB_COMPRESS", "gzip") // xz takes most of the time on a busy machine
	runMake(t, "deb", "DEB_OUT="+out, "STAGE="+filepath.Join(t.TempDir(), "stage"))
	debs, _ := filepath.Glob(filepath.Join(out, "clyde_*.deb"))
	if len(debs) != 1 {
		t.Fatalf("make deb wrote %v, want one clyde_*.deb", debs)
	}
	contents, err := exec.Command("dpkg-deb", "-c", debs[0]).Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("dpkg", "-r", "clyde").CombinedOutput(); err != nil {
			t.Errorf("dpkg -r clyde: %v\n%s", err, out)
		}
	})
	if out, err := exec.Command("dpkg", "-i", debs[0]).CombinedOutput(); err != nil {
		t.Fatalf("dpkg -i: %v\n%s", err, out)
	}
	installed := dpkgFiles(t)
	for _, want := range []string{"/usr/bin/clyde", "/usr/share/man/man1/clyde-fs.1.gz", "/usr/share/bash-completion/completions/clyde",
		"/usr/share/zsh/vendor-completions/_clyde", "/usr/share/fish/vendor_completions.d/clyde.fish", "/usr/share/doc/clyde/copyright",
		"/usr/share/doc/clyde/changelog.Debian.gz"} {
		if !slices.Contains(installed, want) {
			t.Errorf("dpkg -L clyde has no %s", want)
		}
		if !strings.Contains(string(contents), "."+want) {
			t.Errorf("dpkg -c has no %s", want)
		}
	}
	if out, err := exec.Command("/usr/bin/clyde", "--version").Output(); err != nil || !strings.HasPrefix(string(out), "clyde version ") {
		t.Errorf("clyde --version: %v: %q", err, out)
	}
	man := exec.Command("man", "clyde-fs")
	man.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80")
	if out, err := man.Output(); err != nil || !strings.Contains(string(out), "EXIT STATUS") {
		t.Errorf("man clyde-fs: %v: %.200q", err, out)
	}
	bash := exec.Command("bash", "--norc", "--noprofile", "-c",
		"source /usr/share/bash-completion/completions/clyde; COMP_WORDS=(clyde block --rw ''); COMP_CWORD=3; _clyde; echo ${COMPREPLY[*]}")
	if out, err := bash.Output(); err != nil || !strings.Contains(string(out), "randread") {
		t.Errorf("installed bash completion: %v: %q", err, out)
	}
	if out, err := exec.Command("dpkg", "-r", "clyde").CombinedOutput(); err != nil {
		t.Fatalf("dpkg -r: %v\n%s", err, out)
	}
	if left := dpkgFiles(t); len(left) > 0 {
		t.Errorf("dpkg -L still lists %v after dpkg -r", left)
	}
	for _, f := range installed {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("%s is still there after dpkg -r", f)
		}
	}
	// the cleanup's dpkg -r now finds nothing to remove, which dpkg accepts
}

// TestDebVersion checks git describe's versions as Debian versions, and
// that dpkg orders them as the releases go.
func TestDebVersion(t *testing.T) {
	cases := []struct{ describe, deb string }{
		{"1.2.3", "1.2.3"},
		{"1.2.3-4-g0123456789ab", "1.2.3+4.g0123456789ab"},
		{"1.2.3-4-g0123456789ab-dirty", "1.2.3+4.g0123456789ab+dirty"},
		{"0.1.0-dev.212.g0123456789ab", "0.1.0~dev.212.g0123456789ab"},
		{"1.3.0-rc1", "1.3.0~rc1"},
	}
	for _, c := range cases {
		t.Run(c.describe, func(t *testing.T) {
			out, err := exec.Command("sh", "version.sh", "--deb", c.describe).Output()
			if got := strings.TrimSpace(string(out)); err != nil || got != c.deb {
				t.Errorf("version.sh --deb %s = %q (%v), want %q", c.describe, got, err, c.deb)
			}
		})
	}
	t.Run("dpkg orders the releases", func(t *testing.T) {
		if _, err := exec.LookPath("dpkg"); err != nil {
			clydetest.Skip(t, "dpkg is not installed (Debian's dpkg package)")
		}
		// the order releases come in: dev builds, the tag, commits after it
		order := []string{"0.1.0~dev.212.g0123456789ab", "0.1.0~dev.213.g1", "0.1.0", "1.2.3", "1.2.3+4.g0123456789ab", "1.3.0~rc1", "1.3.0"}
		for i := 1; i < len(order); i++ {
			if err := exec.Command("dpkg", "--compare-versions", order[i-1], "lt", order[i]).Run(); err != nil {
				t.Errorf("dpkg does not order %s before %s", order[i-1], order[i])
			}
		}
	})
}
