package fiojob

import (
	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio's batching options (fio 3.33's options.c and init.c): how many I/Os
// one submission and one reap take. clyde's io_uring and libaio do what
// fio's loop does with the defaults (iodepth_batch_submit=1,
// iodepth_batch_complete_min=1, iodepth_batch_complete_max = the min) and
// take iodepth_batch_complete_max; a submission of more than one I/O, or a
// reap that may take none, is refused by name.
func batchHandlers() map[string]handler {
	onlyOne := func(why string) handler {
		return func(j *job, o Option) error {
			var v int
			if err := j.intIn(o, 0, blockbench.MaxIODepth, &v); err != nil {
				return err
			}
			if v != 1 {
				return result.Usagef(o.Pos, "%s=%d: %s; give 1 (fio's default) or leave it out", o.Name, v, why)
			}
			return echo(j, o)
		}
	}
	submit := onlyOne("clyde submits one I/O per call")
	complete := onlyOne("clyde waits for at least one completion per reap")
	return map[string]handler{
		"iodepth_batch_submit":       submit,
		"iodepth_batch":              submit,
		"iodepth_batch_complete_min": complete,
		"iodepth_batch_complete":     complete,
		"iodepth_batch_complete_max": func(j *job, o Option) error {
			// 0, or a value below the min (1), is fio's default: the min.
			if err := j.intIn(o, 0, blockbench.MaxIODepth, &j.w.IODepthBatchCompleteMax); err != nil {
				return err
			}
			return echo(j, o)
		},
	}
}

// addBatchOptions registers the batching options beside the others.
func addBatchOptions() {
	for k, h := range batchHandlers() {
		handlers[k] = h
	}
}
