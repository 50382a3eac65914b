package fiojob

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio's options of how a job runs beside what it does: startdelay (a
// range drawn as fio draws it), the minimum rates, io_submit_mode,
// create_on_open, and those that change nothing clyde runs but are
// accepted, echoed and noted: thread's profile twin threads,
// experimental_verify; cpus_allowed, cpumask and cpus_allowed_policy pin
// the workers' threads (blockbench's affinity.go).

// addRunOptions registers the options beside the others.
func addRunOptions() {
	for k, h := range map[string]handler{
		// threads is the option of fio's tiobench profile (profiles/
		// tiobench.c), which fio's parser finds for any job: it changes
		// nothing a job does (fio 3.33 echoes it and runs the job).
		"threads":              func(j *job, o Option) error { return needValue(o) },
		"cpus_allowed_policy":  (*job).cpusAllowedPolicy,
		"cpus_allowed":         (*job).cpusAllowed,
		"cpumask":              (*job).cpumask,
		"io_submit_mode":       (*job).ioSubmitMode,
		"experimental_verify":  func(j *job, o Option) error { return boolean(o, &j.experimentalVerify) },
		"create_on_open":       func(j *job, o Option) error { return boolean(o, &j.w.CreateOnOpen) },
		"startdelay":           (*job).startDelay,
		"unified_rw_reporting": (*job).unifiedRWReporting,
		"rate_min":             func(j *job, o Option) error { return j.rate(o, &j.w.RateMin, true) },
		"rate_iops_min":        func(j *job, o Option) error { return j.rate(o, &j.w.RateIOPSMin, false) },
		"rate_cycle": func(j *job, o Option) error {
			var ms int
			if err := j.intIn(o, 1, math.MaxInt32, &ms); err != nil {
				return err
			}
			j.w.RateCycle = time.Duration(ms) * time.Millisecond
			return nil
		},
	} {
		handlers[k] = h
	}
	aliases["ratemin"] = "rate_min"
	aliases["ratecycle"] = "rate_cycle"
	delete(refusals, "rate_min")
	delete(refusals, "startdelay")
	delete(refusals, "unified_rw_reporting")
}

// unifiedRWReporting is fio's unified_rw_reporting (options.c posval):
// none or 0, mixed or 1, both or 2 (blockbench's Unified; the result's
// "mixed" object).
func (j *job) unifiedRWReporting(o Option) error {
	switch o.Value {
	case "none", "0":
		j.w.Report.Unified = blockbench.UnifiedNone
	case "mixed", "1":
		j.w.Report.Unified = blockbench.UnifiedMixed
	case "both", "2":
		j.w.Report.Unified = blockbench.UnifiedBoth
	default:
		return result.Usagef(o.Pos, "unified_rw_reporting=%q: give none (0), mixed (1) or both (2)", o.Value)
	}
	return nil
}

// cpusAllowedPolicy is fio's cpus_allowed_policy: how fio splits
// cpus_allowed among a job's threads, shared (each on all of them) or
// split (each on one; blockbench.CPUAffinity). Without cpus_allowed or
// cpumask it changes nothing, as in fio, and a note says so.
func (j *job) cpusAllowedPolicy(o Option) error {
	switch o.Value {
	case "shared", "split":
		j.w.Affinity.Split = o.Value == "split"
	default:
		return result.Usagef(o.Pos, "cpus_allowed_policy=%q: give shared or split", o.Value)
	}
	return nil
}

// cpusAllowed is fio's cpus_allowed (options.c set_cpus_allowed): CPUs
// and ranges LOW-HIGH separated by ',', an empty part ending the list,
// a range that runs backwards naming none. Each CPU must be a number
// (fio's atoi would take a word as CPU 0); whether the machine has it
// is blockbench's to check when the job runs.
func (j *job) cpusAllowed(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	var cpus []int
	for _, part := range strings.Split(strings.TrimSpace(o.Value), ",") {
		if part == "" {
			break
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		if err == nil && isRange && hi != "" {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err != nil || a < 0 || b >= maxCPUs {
			return result.Usagef(o.Pos, "cpus_allowed=%s: %q is not a CPU or a range of them; give CPU numbers and ranges such as 0-3,6", o.Value, part)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) == 0 {
		return result.Usagef(o.Pos, "cpus_allowed=%s names no CPU; give CPU numbers and ranges such as 0-3,6", o.Value)
	}
	j.w.Affinity.CPUs = cpus
	return nil
}

// maxCPUs is fio's FIO_MAX_CPUS on Linux (os-linux.h: CPU_SETSIZE).
const maxCPUs = 1024

// cpumask is fio's cpumask (options.c str_cpumask_cb): a number whose
// bits 0 to 31 are the CPUs.
func (j *job) cpumask(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	v, err := ParseSize(o.Value, j.kb)
	if err != nil {
		return result.Usagef(o.Pos, "cpumask=%q is not a mask; give a number whose bits are the CPUs (0x3: CPUs 0 and 1)", o.Value)
	}
	var cpus []int
	for c := range 32 {
		if v&(1<<c) != 0 {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) == 0 {
		return result.Usagef(o.Pos, "cpumask=%s names no CPU; give a number whose bits are the CPUs (0x3: CPUs 0 and 1)", o.Value)
	}
	j.w.Affinity.CPUs = cpus
	return nil
}

// ioSubmitMode is fio's io_submit_mode: inline, or offload, where fio's
// job thread hands each I/O to a worker thread of its own that submits and
// reaps it (rate-submit.c). clyde's worker submits and reaps its own I/O
// either way: with offload fio's counts and depth distributions are an
// inline run's (fio 3.33 at iodepth=1 gives the same iodepth_level,
// iodepth_submit and iodepth_complete), and the note says what ran.
func (j *job) ioSubmitMode(o Option) error {
	switch o.Value {
	case "inline":
		j.offload = false
	case "offload":
		j.offload = true
	default:
		return result.Usagef(o.Pos, "io_submit_mode=%q: give inline or offload", o.Value)
	}
	return nil
}

// runNotes say what of the run options clyde ran other than fio would.
func (j *job) runNotes(w blockbench.Workload) []string {
	var notes []string
	if o, ok := j.set["cpus_allowed_policy"]; ok && len(w.Affinity.CPUs) == 0 {
		notes = append(notes, "job "+j.sec.Name+": cpus_allowed_policy="+o.Value+" without cpus_allowed or cpumask: no CPUs to share or split, so it changed nothing, as in fio")
	}
	if j.offload {
		notes = append(notes, "job "+j.sec.Name+": io_submit_mode=offload: fio hands each I/O to a submit thread of its own; clyde's worker submitted and reaped its I/O itself, as inline (the same counts and depths at iodepth 1; fio 3.33 itself hangs at the end of an offloaded job deeper than 1 here)")
	}
	if j.experimentalVerify && w.Verify != blockbench.VerifyNone {
		notes = append(notes, "job "+j.sec.Name+": experimental_verify=1: fio regenerates each block's data from its seed rather than logging the blocks it wrote; clyde keeps each block's seed, so the same blocks are read back and checked")
	}
	return notes
}

// startDelay is fio's startdelay: a time (seconds by default), or a range
// LOW-HIGH (or LOW:HIGH, LOW,HIGH) from which each job and clone draws
// its own as fio's fixup_options does (drawStartDelay).
func (j *job) startDelay(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	low, high, err := parseStartDelay(o.Value)
	if err != nil {
		return result.Usagef(o.Pos, "startdelay=%s: %v; give a time such as 10 (seconds), 500ms, or a range such as 1-3", o.Value, err)
	}
	j.delayLow, j.delayHigh = low, high
	return nil
}

// errTime is a startdelay part that is no time.
type errTime string

func (e errTime) Error() string { return string(e) }

// parseStartDelay reads startdelay as fio 3.33's handle_option reads a
// time option with a second value: the value is cut at its first ',', or
// where there is none its first ':', or else its first '-', and each part
// read by str_to_decimal; the first part's unit is read from all that
// follows its digits (so "1s-3s" starts at 1 us: get_mult_time knows no
// unit "s-3s", and a unit it does not know is microseconds), the last
// part is the end of the range. A single value is both ends. Both are in
// microseconds.
func parseStartDelay(v string) (low, high uint64, err error) {
	parts := splitFioValue(v)
	first := v // __handle_option cuts only at a ','
	if i := strings.IndexByte(v, ','); i >= 0 {
		first = v[:i]
	}
	if low, err = fioTimeUs(first); err != nil {
		return 0, 0, err
	}
	high = low
	if len(parts) > 1 {
		if high, err = fioTimeUs(parts[len(parts)-1]); err != nil {
			return 0, 0, err
		}
	}
	switch {
	case high < low:
		return 0, 0, errTime("the range ends before it starts")
	case high > uint64(blockbench.MaxRuntime/time.Microsecond):
		return 0, 0, errTime("longer than a run may last")
	}
	return low, high, nil
}

// splitFioValue is handle_option's split of a value into its parts: at
// each ',', or where the value has none at each ':', or else each '-' (a
// ',' that ends the value ends it, with no part after it).
func splitFioValue(v string) []string {
	var parts []string
	for {
		i := strings.IndexByte(v, ',')
		if i >= 0 && i == len(v)-1 {
			v = v[:i]
			i = -1
		}
		if i < 0 {
			i = strings.IndexByte(v, ':')
		}
		if i < 0 {
			i = strings.IndexByte(v, '-')
		}
		if i < 0 {
			return append(parts, v)
		}
		parts = append(parts, v[:i])
		v = v[i+1:]
	}
}

// fioTimeUs is fio's str_to_decimal for a time in seconds (is_seconds),
// in microseconds: strtoll's number at the start of s (hexadecimal when s
// holds "0x"), times get_mult_time's unit, read from what follows the
// leading digits and signs of s: a prefix us or ms, exactly s, m, h or d,
// seconds when no letter follows, microseconds for any other word.
func fioTimeUs(s string) (uint64, error) {
	t := strings.TrimLeft(s, " \t")
	if t == "" || t[0] == '(' {
		return 0, errTime("not a time (clyde reads no arithmetic)")
	}
	base := 10
	if strings.Contains(s, "0x") || strings.Contains(s, "0X") {
		base = 16
	}
	num := t
	if base == 16 {
		num = strings.TrimPrefix(strings.TrimPrefix(num, "0x"), "0X")
	}
	end := 0
	for end < len(num) && isDigit(num[end], base) {
		end++
	}
	if end == 0 {
		return 0, errTime("not a time")
	}
	n, err := strconv.ParseUint(num[:end], base, 64)
	if err != nil {
		return 0, errTime("too large")
	}
	p := 0
	for p < len(s) && (s[p] >= '0' && s[p] <= '9' || s[p] == '+' || s[p] == '-') {
		p++
	}
	mult := uint64(1)
	switch c := strings.ToLower(s[p:]); {
	case c == "" || !isLetter(c[0]):
		mult = 1e6
	case strings.HasPrefix(c, "us"):
	case strings.HasPrefix(c, "ms"):
		mult = 1e3
	case c == "s":
		mult = 1e6
	case c == "m":
		mult = 60e6
	case c == "h":
		mult = 3600e6
	case c == "d":
		mult = 86400e6
	}
	if n > math.MaxUint64/mult {
		return 0, errTime("too large")
	}
	return n * mult, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// drawStartDelays gives each clone of the job (thread is the number fio
// gives the first, from 1 through the file) its startdelay as fio 3.33's
// fixup_options draws it: rand_between(low, high) from the clone's own
// FIO_RAND_START_DELAY seed, in microseconds. A clone copies its job's
// options after the job's draw, and fio's start_delay_orig, the low end,
// is taken only when 0: so when the range starts at 0 every clone draws
// from the job's own draw up.
func (j *job) drawStartDelays(ws []blockbench.Workload, thread int) {
	if j.delayHigh == 0 {
		return
	}
	randseed, seeded := uint64(fioRandSeed), true
	if _, ok := j.set["randseed"]; ok {
		randseed = j.w.Seed
	} else if o, ok := j.set["randrepeat"]; ok && (o.Value == "0") {
		seeded = false // fio's seeds come from /dev/urandom: one of clyde's own
	}
	low := j.delayLow
	for i := range ws {
		seed := j.w.Seed ^ uint64(thread+i)*0x9e3779b97f4a7c15
		if seeded {
			seed = fioSeed(randseed, thread+i, fioRandStartDelay)
		}
		d := newFioRand(seed, j.taus64).between(low, j.delayHigh)
		ws[i].StartDelay = time.Duration(d) * time.Microsecond
		if i == 0 && low == 0 {
			low = d // the clones' start_delay_orig: the job's draw
		}
	}
}
