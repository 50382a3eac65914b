package fiojob

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
)

// TestFioRand holds clyde's copy of fio's generator and seeds to fio's
// own: the table is what fio 3.33's lib/rand.c draws for startdelay's
// seed of job thread (testdata/fiorand_oracle.c prints it), a range of
// 100 ms to 3 s and then 0 to 5e9 us (more than 32 bits: taus88 draws on
// the difference cut to 32 bits).
func TestFioRand(t *testing.T) {
	for _, c := range []struct {
		randseed    uint64
		use64       bool
		thread      int
		first, next uint64
	}{
		{0x89, false, 1, 2041702, 289446736},
		{0x89, false, 2, 354552, 273892033},
		{0x89, false, 3, 1722550, 646370064},
		{0x89, true, 1, 1040923, 1203610596},
		{0x89, true, 2, 686045, 1941286951},
		{0x89, true, 3, 583968, 492331758},
		{1234, false, 1, 2025671, 474561334},
		{1234, false, 3, 1518758, 646604336},
		{1234, true, 1, 776936, 4291693567},
		{1234, true, 2, 125116, 1510509872},
		{0, false, 2, 1993587, 472718546},
		{0, true, 3, 1366954, 3072550446},
	} {
		r := newFioRand(fioSeed(c.randseed, c.thread, fioRandStartDelay), c.use64)
		first := r.between(100000, 3000000)
		next := r.between(0, 5000000000)
		if first != c.first || next != c.next {
			t.Errorf("randseed %#x use64 %v thread %d: %d, %d; fio draws %d, %d", c.randseed, c.use64, c.thread, first, next, c.first, c.next)
		}
	}
}

// TestParseStartDelay reads startdelay as fio 3.33's parser does,
// quirks included (a unit it does not know is microseconds).
func TestParseStartDelay(t *testing.T) {
	for _, c := range []struct {
		in        string
		low, high time.Duration
		err       string
	}{
		{in: "5", low: 5 * time.Second, high: 5 * time.Second},
		{in: "1-3", low: time.Second, high: 3 * time.Second},
		{in: "1:3", low: time.Second, high: 3 * time.Second},
		{in: "1,3", low: time.Second, high: 3 * time.Second},
		{in: "500ms-2", low: 500 * time.Millisecond, high: 2 * time.Second},
		{in: "100us", low: 100 * time.Microsecond, high: 100 * time.Microsecond},
		{in: "2m", low: 2 * time.Minute, high: 2 * time.Minute},
		{in: "1h", low: time.Hour, high: time.Hour},
		// get_mult_time matches "s" exactly against all after the digits.
		{in: "1s-3s", low: time.Microsecond, high: 3 * time.Second},
		{in: "10sec", low: 10 * time.Microsecond, high: 10 * time.Microsecond},
		{in: "1-2-3", low: time.Second, high: 3 * time.Second},
		{in: "5,", low: 5 * time.Second, high: 5 * time.Second},
		{in: "0x10", low: 16 * time.Microsecond, high: 16 * time.Microsecond},
		{in: "3-1", err: "ends before it starts"},
		{in: "soon", err: "not a time"},
		{in: "-1", err: "not a time"},
		{in: "(1+2)", err: "arithmetic"},
		{in: "1-", err: "not a time"},
	} {
		low, high, err := parseStartDelay(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want an error saying %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || time.Duration(low)*time.Microsecond != c.low || time.Duration(high)*time.Microsecond != c.high {
			t.Errorf("%q: %d-%d us (%v), want %v-%v", c.in, low, high, err, c.low, c.high)
		}
	}
}

// TestRunOptions reads the run options into the workloads: startdelay
// drawn per clone as fio draws it, the minimum rates, and the options
// that change nothing but are echoed and noted.
func TestRunOptions(t *testing.T) {
	cases := []struct {
		name, text string
		check      func(t *testing.T, g []blockbench.Workload, notes []string)
	}{
		{"startdelay per clone", "[a]\nfilename=f\nsize=1m\nstartdelay=100ms-3\nnumjobs=3\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				// fio's draws for threads 1, 2, 3 (TestFioRand's table).
				for i, want := range []time.Duration{2041702, 354552, 1722550} {
					if g[i].StartDelay != want*time.Microsecond {
						t.Errorf("clone %d: %v, want %v", i, g[i].StartDelay, want*time.Microsecond)
					}
				}
			}},
		{"a range from 0: the clones draw from the job's draw up", "[a]\nfilename=f\nsize=1m\nstartdelay=0-3\nnumjobs=3\nrandseed=1234\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				for _, w := range g[1:] {
					if w.StartDelay < g[0].StartDelay {
						t.Errorf("clone %v before the job's %v", w.StartDelay, g[0].StartDelay)
					}
				}
			}},
		{"thread numbers run through the file", "[a]\nfilename=f\nsize=1m\n[b]\nfilename=f\nsize=1m\nstartdelay=100ms-3\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				if g[0].StartDelay != 0 || g[1].StartDelay != 354552*time.Microsecond {
					t.Errorf("delays %v %v, want 0 and thread 2's draw", g[0].StartDelay, g[1].StartDelay)
				}
			}},
		{"a single delay", "[a]\nfilename=f\nsize=1m\nstartdelay=2\nrandom_generator=tausworthe64\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				if g[0].StartDelay != 2*time.Second {
					t.Errorf("%v", g[0].StartDelay)
				}
			}},
		{"minimum rates", "[a]\nfilename=f\nsize=1m\nratemin=1m,500k\nrate_iops_min=100\nratecycle=500\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				w := g[0]
				if w.RateMin != [2]int64{1 << 20, 500 << 10} || w.RateIOPSMin != [2]int64{100, 100} || w.RateCycle != 500*time.Millisecond ||
					w.JobOptions.Get("rate_min") != "1m,500k" || w.JobOptions.Get("rate_cycle") != "500" {
					t.Errorf("%v %v %v %v", w.RateMin, w.RateIOPSMin, w.RateCycle, w.JobOptions)
				}
			}},
		{"accepted and noted", "[a]\nfilename=f\nsize=1m\nthreads=1\nthread\ncpus_allowed_policy=split\nio_submit_mode=offload\ncreate_on_open=1\n",
			func(t *testing.T, g []blockbench.Workload, notes []string) {
				if !g[0].CreateOnOpen || g[0].JobOptions.Get("threads") != "1" || g[0].JobOptions.Get("io_submit_mode") != "offload" {
					t.Errorf("%+v", g[0].JobOptions)
				}
				all := strings.Join(notes, "\n")
				if !strings.Contains(all, "cpus_allowed_policy=split") || !strings.Contains(all, "io_submit_mode=offload") {
					t.Errorf("notes %q", notes)
				}
			}},
		{"unified_rw_reporting, by name and number", "[a]\nfilename=f\nsize=1m\nunified_rw_reporting=mixed\n[b]\nfilename=f\nsize=1m\nunified_rw_reporting=2\n[c]\nfilename=f\nsize=1m\nunified_rw_reporting=1\nunified_rw_reporting=none\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				if g[0].Report.Unified != blockbench.UnifiedMixed || g[1].Report.Unified != blockbench.UnifiedBoth || g[2].Report.Unified != blockbench.UnifiedNone {
					t.Errorf("modes %v %v %v", g[0].Report.Unified, g[1].Report.Unified, g[2].Report.Unified)
				}
			}},
		{"cpus_allowed, cpumask, the last one given wins; the policy", "[a]\nfilename=f\nsize=1m\ncpus_allowed= 0-2,5 \ncpus_allowed_policy=split\n[b]\nfilename=f\nsize=1m\ncpus_allowed=1\ncpumask=0x5\n[c]\nfilename=f\nsize=1m\ncpus_allowed=3,,7\n[d]\nfilename=f\nsize=1m\ncpus_allowed=4-2,1\n",
			func(t *testing.T, g []blockbench.Workload, notes []string) {
				for i, want := range []blockbench.CPUAffinity{{CPUs: []int{0, 1, 2, 5}, Split: true}, {CPUs: []int{0, 2}}, {CPUs: []int{3}}, {CPUs: []int{1}}} {
					if fmt.Sprint(g[i].Affinity) != fmt.Sprint(want) {
						t.Errorf("job %d: %+v, want %+v", i, g[i].Affinity, want)
					}
				}
				if len(notes) != 0 {
					t.Errorf("notes %q", notes)
				}
			}},
		{"io_submit_mode=inline says nothing", "[a]\nfilename=f\nsize=1m\nio_submit_mode=offload\nio_submit_mode=inline\n",
			func(t *testing.T, _ []blockbench.Workload, notes []string) {
				if len(notes) != 0 {
					t.Errorf("notes %q", notes)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile(t, c.text, nil, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var all []blockbench.Workload
			for _, g := range p.Groups {
				all = append(all, g...)
			}
			c.check(t, all, p.Notes)
		})
	}
}

// TestRunOptionRefusals: values fio would not take.
func TestRunOptionRefusals(t *testing.T) {
	for _, c := range []struct{ name, opt, want string }{
		{"policy", "cpus_allowed_policy=even", "shared or split"},
		{"submit mode", "io_submit_mode=async", "inline or offload"},
		{"delay", "startdelay=later", "not a time"},
		{"threads without a value", "threads", "needs a value"},
		{"rate cycle 0", "rate_cycle=0", "from 1"},
		{"create_on_open bad bool", "create_on_open=yes", "give 0 or 1"},
		{"unified mode", "unified_rw_reporting=3", "none (0), mixed (1) or both (2)"},
		{"a CPU that is a word", "cpus_allowed=all", `cpus_allowed=all: "all" is not a CPU`},
		{"a CPU past fio's most", "cpus_allowed=0-1024", `cpus_allowed=0-1024: "0-1024" is not a CPU`},
		{"no CPU", "cpus_allowed=,1", "cpus_allowed=,1 names no CPU"},
		{"a range that names none", "cpus_allowed=3-1", "cpus_allowed=3-1 names no CPU"},
		{"cpumask not a number", "cpumask=ff", `cpumask="ff" is not a mask`},
		{"cpumask of no CPU", "cpumask=0x100000000", "cpumask=0x100000000 names no CPU"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, "[a]\nfilename=f\nsize=1m\n"+c.opt+"\n", nil, nil, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "job.fio:4") {
				t.Errorf("got %v, want an error at job.fio:4 saying %q", err, c.want)
			}
		})
	}
}
