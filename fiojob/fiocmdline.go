package fiojob

import (
	"strconv"
	"strings"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio's own command line, and the one rule that says when clyde block's
// command line is fio's: a --name (fio's way of starting a job) before any
// "--". Such a line is read as fio's parse_cmd_line reads it into the job
// file it stands for, and compiled like any job file (Compile): fio's
// defaults for every option not given (size-based, one pass, invalidate=1,
// psync, randrepeat's fixed seed, ...), fio's job options echoed as typed.
// Without --name, clyde block's own command line keeps its conveniences,
// and ClydeStyleNote names each default of it that is not fio's.

// IsFioCommandLine reports whether args (those after the subcommand) are
// fio's command line: a --name (or -name) before any "--".
func IsFioCommandLine(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); name == "name" && strings.HasPrefix(a, "-") {
			return true
		}
	}
	return false
}

// optionalValue are fio's options of type FIO_OPT_STR_SET, the only ones
// whose value on fio's command line is optional (options.c's add_to_lopt):
// --time_based alone sets it; every other option takes the next word as
// its value when it has no "=".
var optionalValue = map[string]bool{
	"bs_unaligned": true, "norandommap": true, "time_based": true, "verify_only": true, "exitall": true,
	"exitall_on_error": true, "stonewall": true, "new_group": true, "thread": true, "group_reporting": true,
	"zero_buffers": true, "refill_buffers": true, "flow_sleep": true,
	"wait_for_previous": true, "blocksize_unaligned": true,
}

// IsJobOption says whether name is an option of fio's jobs that clyde
// knows (reads, or refuses with a reason): on fio's command line such a
// flag belongs to the job, whatever clyde's own flag of that name does.
func IsJobOption(name string) bool {
	if _, ok := handlers[name]; ok {
		return true
	}
	if _, ok := aliases[name]; ok {
		return true
	}
	_, ok := refusals[name]
	return ok
}

// ParseCommandLine reads fio's command line (args after the subcommand) as
// fio's parse_cmd_line does, into the job file it stands for, and returns
// the arguments that are not job options, in order, for the CLI's flag
// parser (fio's own run options such as --output-format, clyde's such as
// --destroy-data, and the words).
//
// The options before the first --name are a [global] section; --name=X
// starts a job [X] holding name=X (--name=global... a [global] one);
// --section=X, before the --name it picks, skips every other job, whose
// options then go to a [global] section, as fio's do. Each section keeps
// its options in the order typed (Section.Typed): fio parses a command
// line's options one by one and echoes them so.
//
// A flag is a job option when IsJobOption says so or the CLI does not
// know it (clydeFlag's known false: the job-file compiler then refuses it
// with its reason, as a job file's line). A job option takes its value
// after "=" or, but for fio's optional ones and the log flags
// (NormalizeArgs's rule), as the next word; one with neither is refused.
// clydeFlag says whether the CLI knows a flag and whether it takes the
// next word as its value.
func ParseCommandLine(args []string, clydeFlag func(name string) (known, takesValue bool)) (*File, []string, error) {
	f := &File{Path: commandLinePath}
	var rest, sections []string
	cur := -1 // the section options go to; -1: a [global] one, made when needed
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		known, takesValue := clydeFlag(name)
		if name == "section" {
			rest = append(rest, a)
			if !hasValue && i+1 < len(args) {
				i++
				value = args[i]
				rest = append(rest, value)
			}
			sections = append(sections, value)
			continue
		}
		if name != "name" && known && !IsJobOption(name) {
			rest = append(rest, a)
			if !hasValue && takesValue && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
			continue
		}
		flag := "--" + name
		switch {
		case hasValue:
		case optionalValue[name]:
		case isLogFlag(name):
			// clyde's rule for fio's log flags (NormalizeArgs): the next
			// word when it is not a flag, else the job's name.
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				value, hasValue = args[i], true
			}
		case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			i++
			value, hasValue = args[i], true
		default:
			next := "nothing"
			if i+1 < len(args) {
				next = args[i+1]
			}
			return nil, nil, result.Usagef(flag, "needs a value (%s=VALUE): on fio's command line (a line with --name) every option but fio's switches takes one, and fio would take the next word, here %s, as it", flag, next)
		}
		if name == "name" {
			switch {
			case value == "":
				return nil, nil, result.Usagef(flag, "needs a job name (--name=NAME)")
			case skipSection(sections, value):
				cur = -1
				continue
			case isGlobal(value):
				f.Sections = append(f.Sections, Section{Name: value, Pos: flag, Typed: true})
			default:
				f.Sections = append(f.Sections, Section{Name: value, Pos: flag + "=" + value, Typed: true})
			}
			cur = len(f.Sections) - 1
		}
		if cur < 0 {
			if n := len(f.Sections); n == 0 || !isGlobal(f.Sections[n-1].Name) {
				f.Sections = append(f.Sections, Section{Name: "global", Pos: "the command line", Typed: true})
			}
			cur = len(f.Sections) - 1
		}
		s := &f.Sections[cur]
		s.Options = append(s.Options, Option{Name: name, Value: strings.TrimSpace(value), Written: value, HasValue: hasValue, Pos: flag})
	}
	return f, rest, nil
}

// commandLinePath is the File.Path of a fio command line's jobs.
const commandLinePath = "the command line"

// skipSection is fio's skip_this_section: with --section given, a job
// whose name it does not list is skipped; [global] ones never are.
func skipSection(sections []string, name string) bool {
	if len(sections) == 0 || isGlobal(name) {
		return false
	}
	for _, s := range sections {
		if s == name {
			return false
		}
	}
	return true
}

// ClydeStyleNote is the one note a job of clyde block's own command line
// (no --name, no preset) carries: each default it ran with that fio's
// command line would not have, by fio's option names, "" when the flags
// given leave none. given says whether a flag was given.
func ClydeStyleNote(j *blockbench.Job, given func(flag string) bool) string {
	var d []string
	add := func(flag string, differs bool, text string) {
		if differs && !given(flag) {
			d = append(d, text)
		}
	}
	add("time_based", j.TimeBased, "time_based=1 (fio: 0, one pass over size)")
	add("runtime", j.Runtime > 0, "runtime="+durationString(j.Runtime)+" (fio: no limit)")
	add("ioengine", j.IOEngine == blockbench.EngineAuto && j.IODepth > 1,
		"ioengine=auto, io_uring where the kernel has it (fio: psync, one I/O at a time)")
	add("invalidate", !j.Invalidate, "invalidate=0 (fio: 1, the file's cache dropped before the job)")
	add("fadvise_hint", !j.FadviseHint && blockbench.CanAdviseAccess, "fadvise_hint=0 (fio: 1)")
	add("size", true, "size: the whole target, "+sizeString(blockbench.DefaultSize)+" for a new file (fio: a new file needs size=)")
	if j.NumJobs > 1 {
		d = append(d, "numjobs="+strconv.Itoa(j.NumJobs)+" summed into one entry (fio: an entry per clone without group_reporting)")
	}
	if len(d) == 0 {
		return ""
	}
	return "clyde's own command line (no --name) ran with defaults that are not fio's: " + strings.Join(d, ", ") +
		"; a line with --name NAME is fio's, with fio's defaults"
}

// minEtaInterval is fio's DISK_UTIL_MSEC, the shortest --eta-interval.
const minEtaInterval = 250 * time.Millisecond

// ParseEtaTimes reads fio's --eta-interval and --eta-newline as fio does
// (seconds, or a number with a unit; "" when not given): the interval at
// least 250 ms, the newline period above 0.
func ParseEtaTimes(interval, newline string) (every, line time.Duration, err error) {
	if interval != "" {
		d, ok := parseFioTime(interval)
		if !ok || d < minEtaInterval {
			return 0, 0, result.Usagef("--eta-interval", "%q: give a time of at least 250ms (seconds, or with ms, s, m), as fio", interval)
		}
		every = d
	}
	if newline != "" {
		d, ok := parseFioTime(newline)
		if !ok || d <= 0 {
			return 0, 0, result.Usagef("--eta-newline", "%q: give a time above 0 (seconds, or with ms, s, m), as fio", newline)
		}
		line = d
	}
	return every, line, nil
}
