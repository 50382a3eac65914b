package fiojob

import "strings"

// fio's command line, as clyde block takes it: the rules that are fio's
// (which words a flag takes, where the job file may stand, what a job file's
// flags override) live here; the CLI keeps only its flag parser's wiring.

// LogFlags are fio's flags that take a value and may also be given bare:
// fio then takes the next word as the value, or none (the job's name).
var LogFlags = []string{"write_bw_log", "write_iops_log", "write_lat_log"}

// NormalizeArgs prepares fio-style arguments (those after the subcommand)
// for a flag parser that stops at the first word that is not a flag: every
// word that is not a flag (the job file, which fio takes anywhere) moves
// after the flags, behind "--"; a bare log flag (--write_lat_log) gets the
// next word as its value when that is not a flag (--write_lat_log lg
// writes lg_clat.1.log), else an empty one.
//
// takesValue says whether a flag (by its name without dashes) takes the
// next word as its value (false for booleans and unknown flags); checkWord,
// when set, may refuse each word that is not a flag, before any "--".
func NormalizeArgs(args []string, takesValue func(name string) bool, checkWord func(word string) error) ([]string, error) {
	out := make([]string, 0, len(args)+1)
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if checkWord != nil {
				if err := checkWord(a); err != nil {
					return nil, err
				}
			}
			words = append(words, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if isLogFlag(name) && !hasValue {
			// fio takes the next word as the prefix, and none before
			// another flag or at the end: the job's name.
			v := ""
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				v = args[i]
			}
			a = "--" + name + "=" + v
			hasValue = true
		}
		out = append(out, a)
		if !hasValue && takesValue(name) && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	if len(words) > 0 {
		out = append(append(out, "--"), words...)
	}
	return out, nil
}

func isLogFlag(name string) bool {
	for _, lf := range LogFlags {
		if name == lf {
			return true
		}
	}
	return false
}

// FlagOption pairs a command-line flag with the fio option it overrides in
// every job of a job file.
type FlagOption struct{ Flag, Option string }

// JobFileFlags are the flags that override a job file's options, by fio's
// option names.
var JobFileFlags = []FlagOption{
	{"filename", "filename"}, {"size", "size"}, {"offset", "offset"}, {"rw", "rw"},
	{"rwmixread", "rwmixread"}, {"bs", "bs"}, {"iodepth", "iodepth"}, {"numjobs", "numjobs"}, {"ioengine", "ioengine"},
	{"direct", "direct"}, {"runtime", "runtime"}, {"ramp_time", "ramp_time"}, {"time_based", "time_based"},
	{"zero_buffers", "zero_buffers"}, {"refill_buffers", "refill_buffers"}, {"buffer_compress_percentage", "buffer_compress_percentage"},
	{"fsync", "fsync"}, {"end_fsync", "end_fsync"}, {"invalidate", "invalidate"}, {"fadvise_hint", "fadvise_hint"}, {"seed", "randseed"}, {"randrepeat", "randrepeat"},
	{"percentile_list", "percentile_list"}, {"clat_percentiles", "clat_percentiles"}, {"lat_percentiles", "lat_percentiles"},
	{"slat_percentiles", "slat_percentiles"}, {"write_bw_log", "write_bw_log"}, {"write_iops_log", "write_iops_log"},
	{"write_lat_log", "write_lat_log"}, {"log_avg_msec", "log_avg_msec"}, {"log_offset", "log_offset"},
	{"group_reporting", "group_reporting"}, {"thread", "thread"}, {"kb_base", "kb_base"},
	{"random_distribution", "random_distribution"}, {"zonemode", "zonemode"}, {"zonesize", "zonesize"},
	{"zonerange", "zonerange"}, {"zoneskip", "zoneskip"},
	{"fdatasync", "fdatasync"}, {"fsync_on_close", "fsync_on_close"}, {"verify", "verify"}, {"verify_fatal", "verify_fatal"},
	{"do_verify", "do_verify"},
	{"iodepth_batch_submit", "iodepth_batch_submit"}, {"iodepth_batch_complete_min", "iodepth_batch_complete_min"},
	{"iodepth_batch_complete_max", "iodepth_batch_complete_max"}, {"iodepth_low", "iodepth_low"},
}

// FlagOverrides turns the JobFileFlags given on the command line into
// Options.Overrides, in the table's order. value returns a flag's value in
// fio's syntax (a boolean as 1 or 0) and whether it was given; a log flag
// given without a value overrides with the option bare, which names the log
// after each job, as fio does.
func FlagOverrides(value func(flag string) (string, bool)) []Option {
	var out []Option
	for _, m := range JobFileFlags {
		v, given := value(m.Flag)
		if !given {
			continue
		}
		opt := Option{Name: m.Option, Value: v, HasValue: true, Pos: "--" + m.Flag}
		if v == "" && strings.HasSuffix(m.Option, "_log") {
			opt.HasValue = false
		}
		out = append(out, opt)
	}
	return out
}

// CommandLineLogs is the LogSpec of fio's log flags on a command line for
// the job named job: value returns a log flag's value and whether it
// was given; one given bare (an empty value, NormalizeArgs's) names the log
// after the job, as fio does.
func CommandLineLogs(job string, avgMsec int, offset bool, value func(flag string) (string, bool)) LogSpec {
	l := LogSpec{AvgMsec: avgMsec, Offset: offset}
	for _, p := range []struct {
		flag string
		dst  *string
	}{{"write_bw_log", &l.BW}, {"write_iops_log", &l.IOPS}, {"write_lat_log", &l.Lat}} {
		if v, given := value(p.flag); given {
			*p.dst = v
			if v == "" {
				*p.dst = job
			}
		}
	}
	return l
}
