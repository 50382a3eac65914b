package fiojob

import (
	"slices"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio's "job options" and "global options", as fio 3.33 writes them: a
// job's own option lines, nothing inherited or defaulted (init.c's
// get_new_job starts each job's list empty; a numjobs clone copies its
// job's), each under fio's name for the option and with its value as
// written (parse.c's add_to_dump_list keeps the text after the '=', blanks
// before it included, after ${VAR} and $ncpus were expanded), in the order
// fio parsed them: a job file's section sorted by option priority
// (sort_options, a stable sort), a command line's options as typed. A line
// without a value (time_based) or with an empty one is left out: json.c
// writes no member for it.

// fioNames are fio's own names of the aliases clyde reads: fio echoes an
// option by its name, not the alias written (iodepth_batch_submit=8 echoes
// as iodepth_batch).
var fioNames = map[string]string{
	"readwrite": "rw", "blocksize": "bs", "timeout": "runtime", "wait_for_previous": "stonewall",
	"fileoffset": "offset", "iodepth_batch_submit": "iodepth_batch",
	"iodepth_batch_complete": "iodepth_batch_complete_min", "io_limit": "io_size",
	"nr_files": "nrfiles", "blocksize_range": "bsrange", "blockalign": "ba",
	"blocksize_unaligned": "bs_unaligned", "iomem": "mem", "ratemin": "rate_min", "ratecycle": "rate_cycle",
}

// fioPriority is fio's prio of an option (options.c): a section's options
// are parsed, and echoed, higher priority first. kb_base and unit_base
// govern the sizes around them; filename and filename_format come after
// directory.
func fioPriority(name string) int {
	switch name {
	case "kb_base", "unit_base", "lockfile", "cpus_allowed_policy":
		return 1
	case "filename", "filename_format":
		return -1
	}
	return 0
}

// fioName is the name fio echoes an option by.
func fioName(name string) string {
	if n, ok := fioNames[name]; ok {
		return n
	}
	return name
}

// byFioPriority is one section's options in the order fio parses them.
func byFioPriority(list []Option) []Option {
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b Option) int { return fioPriority(fioName(b.Name)) - fioPriority(fioName(a.Name)) })
	return out
}

// echoSection is a section's options as fio echoes them, in fio's parse
// order. It is never nil, so that a job whose section holds no option
// echoes none (blockbench.Workload.JobOptions).
func echoSection(sec Section) result.Options {
	return appendEcho(result.Options{}, sec.parseOrder())
}

// appendEcho appends the options of list that fio echoes, in list's
// order, an engine's own options (cpuio's cpuload) after the others: fio
// parses those once the engine is loaded, and keeps them in that order.
func appendEcho(out result.Options, list []Option) result.Options {
	for _, engines := range []bool{false, true} {
		for _, o := range list {
			if v := o.written(); o.HasValue && v != "" && blockbench.EngineOption(o.Name) == engines {
				out = append(out, result.Option{Name: fioName(o.Name), Value: v})
			}
		}
	}
	return out
}

// written is the option's value as fio echoes it: as written, blanks
// before it kept (Written), else Value.
func (o Option) written() string {
	if o.Written != "" {
		return o.Written
	}
	return o.Value
}
