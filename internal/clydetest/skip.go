package clydetest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// CIEnv names the variable .ci/run sets (CLYDE_CI=1) for make test. CI is
// root and installs every tool the tests use, so there a skip hides a
// failure: Skip then fails the test unless its reason is an allowed skip.
const CIEnv = "CLYDE_CI"

// AllowedSkip is a skip CI may take: Reason is a text the skip's message
// holds, Why says why it is not a tool .ci/run installs or a privilege CI
// has.
type AllowedSkip struct {
	Reason, Why string
}

// AllowedSkips are the skips a CI run may take. Everything else a test
// skips for through Skip (not root, a tool missing, no loop device, no
// FUSE, no Slurm) is a failure under CLYDE_CI=1.
var AllowedSkips = []AllowedSkip{
	{"a clyde package is installed on this machine already",
		"the .deb test never replaces a package someone installed; a CI machine has none"},
	{"helper process for",
		"a test re-runs its own binary as a helper; the helper's other tests skip"},
	{"set FIO_EXAMPLES",
		"the survey of fio's examples/ is run by hand (scripts/bench-fio-examples.sh)"},
	{"never switched out against its will",
		"the involuntary-switch check needs the scheduler to preempt the thread, which an idle machine may not do"},
	{"can clone; the integration tests check the refusal",
		"the copy refusal needs a filesystem without reflinks: on btrfs or xfs temporary directories the integration suite checks it on ext4"},
	{"is not the usual symlink to",
		"a container may give /dev/stdout another shape; the refusal is then checked by the other output tests"},
	{"this kernel cannot inject an ext4 error",
		"a kernel without ext4's debug error injection cannot make the mid-run error; the read-only remount case still runs"},
	{"fio 3.33 hung on this case",
		"fio 3.33's io_submit_mode=offload now and then hangs in its offload threads after its I/O; the case has no fio run to compare with that time"},
	{"io_uring not available here",
		"a container's seccomp profile or kernel.io_uring_disabled can refuse io_uring; the psync cases still run"},
	{"does not take O_DIRECT",
		"a temporary directory on tmpfs or overlayfs refuses O_DIRECT; the loop-device tests check direct I/O"},
	{"root ignores directory permissions",
		"CI runs as root; the read-only and ENOSPC cases run on loop devices in the integration suite"},
	{"is not the filesystem this case needs",
		"each eviction case needs its kind of filesystem (tmpfs, a disk one) where the temporary directory is; the integration suite checks eviction on each"},
	{"(no block device beneath?)",
		"a temporary directory on tmpfs or overlayfs has no sector size; the loop-device tests read a real one"},
	{"this filesystem has no immutable flag",
		"chattr +i needs ext4, xfs or btrfs under the temporary directory, not tmpfs"},
	{"/sys/kernel/mm/transparent_hugepage",
		"a kernel built without transparent huge pages has no such sysfs file; the procfs case still runs"},
	{"does not batch",
		"a table case of fio's batching for an engine that has none (psync, null, mmap, posixaio): the case does not apply, nothing is missing"},
	{"not supported on this platform",
		"an engine or call of another OS (windowsaio on Linux) cannot run here; its own OS's build runs it (windowsaio under Wine, integration/wine)"},
	{"reached the fill level by itself meanwhile",
		"the temporary directory's filesystem is shared with every other package's tests, which may write past a small fill level first; the fill's sizes are then checked by the CDM fill tests on a loop device of their own (integration)"},
	{"this system made a symlink it does not show as one",
		"Wine 8 makes a Unix symlink that its own Lstat does not show as a reparse point, so the case has nothing to refuse; a Windows machine runs it"},
	{"under Wine a refused overlapped read still posts a completion",
		"Wine 8 queues a completion packet for a ReadFile it refused at once, which Windows does not; the engine conformance's other error case and every other case run under Wine"},
	{"needs an amd64 host for wine64",
		"wine64 runs amd64 Windows binaries only; an arm64 CI machine builds the Windows port without running it"},
}

// inCI reports whether CLYDE_CI asks for skips to fail.
func inCI() bool {
	v := os.Getenv(CIEnv)
	return v != "" && v != "0"
}

// allowedSkip returns the allowed skip whose reason msg holds, if any.
func allowedSkip(msg string) (AllowedSkip, bool) {
	for _, a := range AllowedSkips {
		if strings.Contains(msg, a.Reason) {
			return a, true
		}
	}
	return AllowedSkip{}, false
}

// Skip skips t with the reason args make (as t.Skip), or under CLYDE_CI=1
// fails it, unless the reason is an allowed skip.
func Skip(t testing.TB, args ...any) {
	t.Helper()
	skip(t, strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}

// Skipf is Skip with a format.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	skip(t, fmt.Sprintf(format, args...))
}

func skip(t testing.TB, msg string) {
	t.Helper()
	if inCI() {
		if _, ok := allowedSkip(msg); !ok {
			t.Fatalf("would skip: %s; under %s=1 (.ci/run, which installs every tool the tests use and runs as root) a skip is a failure: install what it needs in .ci/run, or add the reason to clydetest.AllowedSkips with why CI may skip it", msg, CIEnv)
		}
	}
	t.Skip(msg)
}
