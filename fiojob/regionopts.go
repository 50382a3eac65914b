package fiojob

import (
	"strconv"
	"strings"

	"github.com/clydebench/clyde/result"
)

// fio's region options: size= and offset= in bytes or in percent of the
// target, offset_increment (per clone), and io_size (io_limit): fio 3.33's
// str_size_cb, str_offset_cb, str_offset_increment_cb and str_io_size_cb
// (options.c), run by blockbench's RegionSpec as filesetup.c's
// get_start_offset and setup_files and backend.c's keep_running do.

// addRegionOptions registers the region options beside the others.
func addRegionOptions() {
	handlers["size"] = (*job).sizeOption
	handlers["offset"] = (*job).offsetOption
	handlers["offset_increment"] = (*job).offsetIncrement
	handlers["io_size"] = (*job).ioSize
	aliases["io_limit"] = "io_size"
}

// sizeOrPercent reads a value of one of fio's FIO_OPT_STR_VAL_ZONE
// options: a size (ParseSize), or a whole percentage, "50%", which fio's
// str_to_decimal turns into -1-50 for the option's callback to tell apart
// (parse_is_percent). A percentage above max is refused: fio would take
// it for a size of some 16 EiB (size=, offset=) or refuse it (io_size).
// fio's zone values ("4z") are for zoned devices and refused.
func (j *job) sizeOrPercent(o Option, max int) (n int64, pct int, isPct bool, err error) {
	if err := needValue(o); err != nil {
		return 0, 0, false, err
	}
	v := strings.TrimSpace(o.Value)
	if digits, ok := strings.CutSuffix(v, "%"); ok {
		p, perr := strconv.Atoi(digits)
		if perr != nil || digits == "" || digits[0] < '0' || digits[0] > '9' || p > max {
			return 0, 0, false, result.Usagef(o.Pos, "%s=%s: give a whole percentage from 0 to %d (50%%) or a size", o.Name, o.Value, max)
		}
		return 0, p, true, nil
	}
	if strings.HasSuffix(v, "z") {
		return 0, 0, false, result.Usagef(o.Pos, "%s=%s: a size in zones is for zoned block devices (zonemode=zbd), which clyde does not drive; give a size or a percentage", o.Name, o.Value)
	}
	n, err = ParseSize(v, j.kb)
	if err != nil {
		return 0, 0, false, sizeError(o, err)
	}
	return n, 0, false, nil
}

// sizeOption is fio's size=: bytes, or a share of the target (str_size_cb
// sets size to 0 and size_percent: the share is of the whole target, at
// most what is left after the offset, cut to whole blocks).
func (j *job) sizeOption(o Option) error {
	n, pct, isPct, err := j.sizeOrPercent(o, 100)
	if err != nil {
		return err
	}
	j.w.Size, j.w.Region.SizePercent = n, pct
	if isPct && pct == 100 {
		j.w.Region.SizePercent = 0 // the rest of the target, as size= not given (setup_files)
	}
	return nil
}

// offsetOption is fio's offset= (fileoffset=): bytes, or a share of the
// target rounded up to a whole block (str_offset_cb's
// start_offset_percent; 0% is offset 0).
func (j *job) offsetOption(o Option) error {
	n, pct, _, err := j.sizeOrPercent(o, 100)
	if err != nil {
		return err
	}
	j.w.Offset, j.w.Region.OffsetPercent = n, pct
	return nil
}

// offsetIncrement is fio's offset_increment: each clone's region starts
// this much, or this share of the target, further on per subjob number
// (clones set the count; a share rounds the offset up to a whole block).
func (j *job) offsetIncrement(o Option) error {
	n, pct, _, err := j.sizeOrPercent(o, 100)
	if err != nil {
		return err
	}
	j.w.Region.Increment, j.w.Region.IncrementPercent = n, pct
	return nil
}

// ioSize is fio's io_size (io_limit): the bytes of I/O to do, over more
// passes than one or fewer; a percentage, at most 100 (str_io_size_cb), of
// the region: fio then lowers the job's size to that share of its files
// (setup_files), which it runs as io_size. io_size=0 is fio's default, one
// pass.
func (j *job) ioSize(o Option) error {
	n, pct, isPct, err := j.sizeOrPercent(o, 100)
	if err != nil {
		return err
	}
	j.w.Region.IOSize, j.w.Region.IOSizePercent = n, 0
	if isPct && pct != 100 {
		j.w.Region.IOSizePercent = pct // 0% and 100% are fio's default, one pass
	}
	return nil
}

// subjob is fio's subjob_number of the job's clone i (clone 0 is the job
// itself): init.c's add_job makes the clones last to first, so the clone
// that runs second is subjob numjobs-1 and the last one 1. fio names the
// clone's file by it ($jobnum) and moves its region by offset_increment
// times it.
func subjob(i, numjobs int) int {
	if i == 0 {
		return 0
	}
	return numjobs - i
}
