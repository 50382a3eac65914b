package fileset

import "github.com/clydebench/clyde/internal/offsets"

// pickFile is fio's __get_next_file: the file of the last pick while its
// run lasts (sequential: while it is open), else the next by the
// service; -1 when every file is done.
func (k *Walk) pickFile() int {
	if k.nDone >= len(k.files) {
		return -1
	}
	if c := k.cur; c >= 0 && k.files[c].open {
		if k.kind == Sequential {
			return c
		}
		if k.left != 0 {
			k.left--
			return c
		}
	}
	var i int
	if k.kind == Random {
		i = k.pickRandom()
	} else {
		i = k.pickRR()
	}
	if i >= 0 {
		k.cur, k.left = i, k.run-1
	}
	return i
}

// pickRR is fio's get_next_file_rr: the files in turn from next_file,
// skipping the done ones; a file not open is opened unless openfiles are
// open already, when fio's -EBUSY has do_io ask again, from the file
// after it.
func (k *Walk) pickRR() int {
	for range 2*len(k.files) + 1 {
		i := k.rr
		if k.rr++; k.rr >= len(k.files) {
			k.rr = 0
		}
		if k.usable(i) {
			return i
		}
	}
	return -1
}

// maxFileDraws bounds the draws of one random pick: fio draws again for
// ever while its draws land on done files or on closed ones with openfiles
// open; past this many clyde takes the first usable file instead.
const maxFileDraws = 1 << 20

// pickRandom is fio's get_next_file_rand: a file drawn uniformly (fio's
// nr_files * r / (max+1)) or by the service's distribution over
// nr_files<<10 ranges, unhashed (init_rand_file_service), drawn again
// while it lands on a done file or a closed one fio could not open.
func (k *Walk) pickRandom() int {
	n := uint64(len(k.files))
	for range maxFileDraws {
		var i uint64
		if k.zipf != nil {
			i = k.zipf.Unhashed() >> fsShift
		} else {
			i = offsets.Below(k.pick, n)
		}
		if k.usable(int(i)) {
			return int(i)
		}
	}
	for i := range k.files {
		if k.usable(i) {
			return i
		}
	}
	return -1
}

// usable says file i can take the next I/O, opening it when there is
// room (fio's td_io_open_file, which resets its positions and map).
func (k *Walk) usable(i int) bool {
	f := &k.files[i]
	switch {
	case f.done:
		return false
	case f.open:
		return true
	case k.nOpen >= k.open:
		return false // fio's -EBUSY
	}
	f.open = true
	k.nOpen++
	f.pos = [2]int64{f.start, f.start}
	f.drawn = 0
	f.dropDue = f.opened && k.dropOnOpen
	f.opened = true
	return true
}
