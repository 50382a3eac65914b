//go:build linux

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// TestThrottledRunNamesEveryFall is issue 30's throttled run: three runs on
// a tmpfs make a baseline on this busy machine, then the same command runs
// in a cgroup held to 5 % of a CPU. The regression line must name every
// column that fell more than the threshold, each marked as the rule reads
// it (fell by the rule, within the noise, a baseline too noisy to judge,
// under 0.5 s), and count them; which columns fell is worked out here from
// the four JSON files, not taken from clyde.
func TestThrottledRunNamesEveryFall(t *testing.T) {
	cg := cpuLimitedCgroup(t, 5)
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		clydetest.Skip(t, "/dev/shm is not a tmpfs here")
	}
	dir, err := os.MkdirTemp("/dev/shm", "clyde-throttle-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	out := t.TempDir()
	db := filepath.Join(out, "h.db")
	args := func(js string) []string {
		return []string{"fs", "-d", dir, "-s", "64", "-r", "32", "-f", "-n", "8", "-m", "throttle", "-q",
			"--db", db, "--check-regression", "20", "--json", js}
	}
	var baseline []*result.FS
	for i := range 3 {
		js := filepath.Join(out, fmt.Sprintf("base%d.json", i))
		if o := runClyde(t, args(js)...); o.code != 0 {
			t.Fatalf("baseline run %d: exit %d\n%s", i, o.code, o.stderr)
		}
		baseline = append(baseline, readFSResult(t, js))
	}
	js := filepath.Join(out, "throttled.json")
	// The shell joins the cgroup, then becomes clyde: every thread clyde
	// starts is in it.
	o := runClydeAs(t, []string{"sh", "-c", `echo $$ > "$0" && exec "$@"`, cg}, args(js)...)
	if o.code != 0 && o.code != 3 {
		t.Fatalf("throttled run: exit %d\n%s", o.code, o.stderr)
	}
	now := readFSResult(t, js)
	rc := now.Check
	if rc == nil {
		t.Fatalf("the throttled run's JSON has no regression check:\n%s", o.stderr)
	}
	var line string
	for _, l := range strings.Split(o.stderr, "\n") {
		if strings.HasPrefix(l, "clyde: regression") {
			line = l
		}
	}
	if line == "" || !strings.HasSuffix(line, rc.Line) {
		t.Fatalf("stderr's line %q is not the JSON's %q", line, rc.Line)
	}
	if (o.code == 3) != rc.Regressed {
		t.Fatalf("exit %d with regressed %v", o.code, rc.Regressed)
	}

	// Which columns fell more than 20 % below the baseline's mean (every
	// repeat of the three runs), from the figures themselves.
	var fell []string
	columns := 0
	for tst := result.FSTest(0); tst < result.FSTestCount; tst++ {
		var sum float64
		n := 0
		for _, b := range baseline {
			for _, r := range b.Runs {
				if r.Tests[tst].Ran && r.Tests[tst].RatePerSec > 0 {
					sum, n = sum+r.Tests[tst].RatePerSec, n+1
				}
			}
		}
		v := now.Runs[0].Tests[tst].RatePerSec
		if !now.Runs[0].Tests[tst].Ran || v <= 0 || n == 0 {
			continue
		}
		columns++
		if mean := sum / float64(n); (mean-v)/mean*100 > 20 {
			fell = append(fell, tst.Name())
		}
	}
	t.Logf("throttled to 5%% of a CPU: %d of %d columns fell more than 20%% (%s); exit %d\n%s", len(fell), columns,
		strings.Join(fell, ", "), o.code, line)
	if len(fell) < columns/2 {
		t.Fatalf("only %v of %d columns fell under the limit: the cgroup did not hold clyde back", fell, columns)
	}
	if want := fmt.Sprintf(": %d of %d columns fell more than 20%% against the mean of 3 earlier comparable runs", len(fell), columns); !strings.Contains(line, want) {
		t.Errorf("the line lacks %q", want)
	}
	// Each one named once, in the list that marks it, with its mark.
	lists := map[string][]string{"fell": rc.Fell, "within": rc.WithinNoise, "noisy": rc.TooNoisy, "short": rc.LowConfidence}
	for _, key := range fell {
		var in []string
		for name, l := range lists {
			if slices.Contains(l, key) {
				in = append(in, name)
			}
		}
		if len(in) != 1 {
			t.Errorf("%s fell but is in the lists %v, want exactly one", key, in)
			continue
		}
		mark := map[string]string{"fell": "", "within": "~", "noisy": "", "short": ""}[in[0]]
		if re := regexp.MustCompile(`(^|[:;,] |judge )` + regexp.QuoteMeta(key) + ` [~?]?-[0-9.]+%`); !re.MatchString(rc.Line) ||
			(mark != "" && !strings.Contains(rc.Line, key+" "+mark+"-")) {
			t.Errorf("the line does not name %s with its mark %q (list %s)", key, mark, in[0])
		}
	}
	if rc.FellCount != len(fell) {
		t.Errorf("the record counts %d fallen columns, the figures %d", rc.FellCount, len(fell))
	}
}

// cpuLimitedCgroup makes a cgroup held to pct percent of one CPU and
// returns the file a process joins it by (cgroup.procs), removed when the
// test ends: cgroup v2 (cpu.max) where the cpu controller is on, else v1
// (cpu.cfs_quota_us).
func cpuLimitedCgroup(t *testing.T, pct int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "a cgroup CPU limit needs root")
	}
	name := "clyde-test-throttle-" + strconv.Itoa(os.Getpid())
	type layout struct{ root, limitFile, limit string }
	quota := strconv.Itoa(pct * 1000)
	var tried []string
	for _, l := range []layout{
		{"/sys/fs/cgroup", "cpu.max", quota + " 100000"},
		{"/sys/fs/cgroup/unified", "cpu.max", quota + " 100000"},
		{"/sys/fs/cgroup/cpu", "cpu.cfs_quota_us", quota},
		{"/sys/fs/cgroup/cpu,cpuacct", "cpu.cfs_quota_us", quota},
	} {
		if l.limitFile == "cpu.max" {
			ctl, err := os.ReadFile(filepath.Join(l.root, "cgroup.subtree_control"))
			if err != nil || !slices.Contains(strings.Fields(string(ctl)), "cpu") {
				tried = append(tried, l.root+": no cpu controller")
				continue
			}
		}
		dir := filepath.Join(l.root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		t.Cleanup(func() {
			// Its processes have exited by now; an empty cgroup is removed.
			if err := os.Remove(dir); err != nil {
				t.Errorf("remove the test's cgroup: %v", err)
			}
		})
		if l.limitFile == "cpu.cfs_quota_us" {
			if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_period_us"), []byte("100000"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, l.limitFile), []byte(l.limit), 0o644); err != nil {
			t.Fatalf("set %s: %v", l.limitFile, err)
		}
		return filepath.Join(dir, "cgroup.procs")
	}
	clydetest.Skipf(t, "no cgroup CPU controller to limit clyde with: %s", strings.Join(tried, "; "))
	return ""
}
