package blockbench

import "github.com/clydebench/clyde/internal/preflight"

// checkBacked holds an existing target the run reads before it writes it
// to the rule on holes and unwritten extents (preflight.Holes): a file
// through its own descriptor, a device through the loop device's backing
// file its data ends in. A file clyde creates is filled before it is
// read, and a run whose first workload writes the target fills it itself.
// allow is --allow-sparse.
func (t *target) checkBacked(allow bool) error {
	if !t.Exists || t.Diskless || t.Created || !t.readFirst || t.Size == 0 {
		return nil
	}
	h := preflight.Holes{Given: t.Given, Size: t.Size, Allow: allow}
	var rep preflight.HoleReport
	var err error
	if t.Device {
		rep, err = h.Device(t.Resolved)
	} else {
		rep, err = h.File(t.File)
	}
	if rep.Note != "" {
		t.Note(rep.Note)
	}
	if rep.Warning != "" {
		t.Warnf("%s", rep.Warning)
	}
	return err
}
