package fiojob

import (
	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio's batching options (fio 3.33's options.c, with init.c's
// fixup_options): how many I/Os one submission takes, how many one reap
// waits for and takes, and how far the queue drains before it is refilled.
// io_uring and libaio run them as fio's loop does (blockbench's
// loop.go). The values are kept as fio gives them and blockbench
// applies fio's fixups: iodepth_batch_submit=0 is iodepth (stored as the
// deepest queue, which the fixup caps at iodepth, as it caps any larger
// value), iodepth_low=0 or above iodepth is iodepth,
// iodepth_batch_complete_min=0 polls (reaps never sleep), and
// iodepth_batch_complete_max below the min is the min.
func batchHandlers() map[string]handler {
	submit := func(j *job, o Option) error {
		var v int
		if err := j.intIn(o, 0, blockbench.MaxIODepth, &v); err != nil {
			return err
		}
		if v == 0 {
			v = blockbench.MaxIODepth // init.c: "If batch number isn't set, default to the same as iodepth"
		}
		j.w.SubmitBatch = v
		return nil
	}
	complete := func(j *job, o Option) error {
		var v int
		if err := j.intIn(o, 0, blockbench.MaxIODepth, &v); err != nil {
			return err
		}
		// 0: fio_ioring_getevents and fio_libaio_getevents ask with
		// actual_min 0, never sleeping.
		j.w.ReapMin, j.w.ReapPoll = v, v == 0
		return nil
	}
	return map[string]handler{
		"iodepth_batch_submit":       submit,
		"iodepth_batch":              submit,
		"iodepth_batch_complete_min": complete,
		"iodepth_batch_complete":     complete,
		"iodepth_batch_complete_max": func(j *job, o Option) error {
			// 0, or a value below the min, is fio's default: the min.
			if err := j.intIn(o, 0, blockbench.MaxIODepth, &j.w.IODepthBatchCompleteMax); err != nil {
				return err
			}
			return nil
		},
		"iodepth_low": func(j *job, o Option) error {
			if err := j.intIn(o, 0, blockbench.MaxIODepth, &j.w.LowWater); err != nil {
				return err
			}
			return nil
		},
	}
}

// addBatchOptions registers the batching options beside the others.
func addBatchOptions() {
	for k, h := range batchHandlers() {
		handlers[k] = h
	}
}

// batchOptionNames are the options finishBatch looks at, fio's names and
// aliases.
var batchOptionNames = []string{"iodepth_batch_submit", "iodepth_batch", "iodepth_batch_complete_min", "iodepth_batch_complete", "iodepth_low"}

// finishBatch holds the batching options to the engine the job resolved
// to. io_uring and libaio run them. fio's synchronous engines (psync, and
// sync, pvsync, pvsync2 and mmap, which clyde runs as psync or mmap) cap
// iodepth at 1 and complete each I/O in its queue call, so the options
// change nothing there and fio ignores them: so does clyde, with a note for
// the one thing fio still shows, the empty reap its iodepth_batch_complete_min=0
// polling counts after every I/O in iodepth_complete. The other engines
// (null, posixaio, windowsaio, auto) would batch in fio or are not fio's,
// and clyde does not batch them: a value other than the default is refused
// by name.
func (j *job) finishBatch(w *blockbench.Workload) error {
	given := Option{}
	for _, n := range batchOptionNames {
		if o, ok := j.set[n]; ok && !batchDefault(n, w, o) {
			given = o
			break
		}
	}
	switch {
	case w.IOEngine == blockbench.EngineIOUring || w.IOEngine == blockbench.EngineLibaio:
		return nil
	case given.Name == "":
		// fio's defaults spelled out (or a low-water mark at iodepth).
		w.SubmitBatch, w.LowWater, w.ReapMin, w.ReapPoll = 0, 0, 0, false
		return nil
	case w.IOEngine == blockbench.EnginePsync || w.IOEngine == blockbench.EngineMmap:
		if w.ReapPoll && w.IODepthBatchCompleteMax == 0 {
			j.notes = append(j.notes, "job "+j.sec.Name+": iodepth_batch_complete_min=0 on a synchronous engine: fio's iodepth_complete also counts an empty reap after every I/O (half its reaps at 0); clyde's counts the I/Os alone")
		}
		w.SubmitBatch, w.LowWater, w.ReapMin, w.ReapPoll = 0, 0, 0, false
		return nil
	}
	return result.Usagef(given.Pos, "%s=%s: clyde batches io_uring and libaio only, and this job runs %s; leave the option out or run one of them", given.Name, given.Value, w.IOEngine)
}

// batchDefault says whether the option o, as the workload holds it, does
// what fio's default does.
func batchDefault(name string, w *blockbench.Workload, o Option) bool {
	switch name {
	case "iodepth_batch_submit", "iodepth_batch":
		return w.SubmitBatch <= 1 || w.IODepth <= 1
	case "iodepth_low":
		return w.LowWater == 0 || w.LowWater >= w.IODepth
	}
	return !w.ReapPoll && (w.ReapMin <= 1 || w.IODepth <= 1)
}

// BatchFlags sets clyde block's batching flags (fio's option names) on a
// job of flags as the options would be read in a job file; value returns a
// flag's value and whether it was given. Unlike a job file, where fio's
// synchronous engines ignore them, a flag given for an engine that does
// not batch is refused when the job is validated.
func BatchFlags(j *blockbench.Job, value func(flag string) (int, bool)) error {
	for _, f := range []struct {
		flag string
		set  func(v int)
	}{
		{"iodepth_batch_submit", func(v int) {
			if v == 0 {
				v = blockbench.MaxIODepth // iodepth, after the fixup's cap
			}
			j.SubmitBatch = v
		}},
		{"iodepth_batch_complete_min", func(v int) { j.ReapMin, j.ReapPoll = v, v == 0 }},
		{"iodepth_batch_complete_max", func(v int) { j.IODepthBatchCompleteMax = v }},
		{"iodepth_low", func(v int) { j.LowWater = v }},
	} {
		v, given := value(f.flag)
		if !given {
			continue
		}
		if v < 0 || v > blockbench.MaxIODepth {
			return result.Usagef("--"+f.flag, "%d is outside 0..%d", v, blockbench.MaxIODepth)
		}
		f.set(v)
	}
	return nil
}
