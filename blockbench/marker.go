package blockbench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// A file clyde creates for a run gets a marker next to it, in the same
// directory: ".NAME.clyde-run". A run killed with SIGKILL (or a crash)
// leaves both; the marker is what lets `clyde block --cleanup` tell that
// file from a user's, and what makes the next run refuse it rather than
// take it for the user's data. The data file is created first and the
// marker, which records its identity, right after; on the way out the data
// file goes first and the marker last, so a removal that fails can be run
// again.
const (
	markerTool = "clyde"
	markerKind = "block-target"
	// markerMax bounds what is read of a marker; a real one is about 300 bytes.
	markerMax = 4096
)

// markerName is the marker's name for the data file base.
func markerName(base string) string { return "." + base + ".clyde-run" }

// marker is the marker's JSON.
type marker struct {
	Tool string `json:"tool"` // always "clyde"
	Kind string `json:"kind"` // always "block-target"
	// File is the data file's name in the same directory.
	File string `json:"file"`
	// The process that made it, named exactly (internal/proc).
	proc.ID
	// Dev, Ino and BirthNs identify the data file, Size is its length: set
	// once when it is created and never changed by the run.
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	BirthNs int64  `json:"birth_ns,omitempty"`
	Size    int64  `json:"size"`
}

// newMarker describes the data file base that this process just created.
func newMarker(base string, e osio.Entry) marker {
	return marker{Tool: markerTool, Kind: markerKind, File: base, ID: proc.Self(),
		Dev: e.ID.Dev, Ino: e.ID.Ino, BirthNs: e.ID.Birth, Size: e.Size}
}

func (m marker) id() osio.Identity { return osio.Identity{Dev: m.Dev, Ino: m.Ino, Birth: m.BirthNs} }

// parseMarker reads a marker and checks every field a decision rests on.
func parseMarker(b []byte) (marker, error) {
	var m marker
	if len(b) > markerMax {
		return m, fmt.Errorf("%d bytes, more than a marker's %d", len(b), markerMax)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("not JSON: %w", err)
	}
	switch {
	case m.Tool != markerTool || m.Kind != markerKind:
		return m, fmt.Errorf("tool %q kind %q, want %q %q", m.Tool, m.Kind, markerTool, markerKind)
	case m.File == "" || strings.ContainsAny(m.File, `/\`) || m.File == "." || m.File == "..":
		return m, fmt.Errorf("file %q is not a name in this directory", m.File)
	case m.Ino == 0:
		return m, errors.New("no inode number")
	case m.Size < 0:
		return m, fmt.Errorf("size %d", m.Size)
	}
	if err := m.Plausible(time.Now()); err != nil {
		return m, err
	}
	return m, nil
}

// readMarker reads the marker of base in d. found is false when there is
// none; an entry by that name that is not a marker clyde wrote is an error.
func readMarker(d osio.Dir, base string) (m marker, found bool, err error) {
	name := markerName(base)
	path := joinName(d, name)
	// Non-blocking and typed (a FIFO planted here never hangs the run),
	// and the marker must be clyde's own: owned by clyde's user, 0600,
	// one link. Another user's file by that name is not a marker.
	f, e, err := safepath.OpenIn(d, name, osio.ReadOnly, safepath.Regular)
	if errors.Is(err, fs.ErrNotExist) {
		return m, false, nil
	}
	if err != nil {
		var ke *safepath.KindError
		if errors.As(err, &ke) {
			return m, true, fmt.Errorf("%s is not a marker clyde wrote: a %s", path, ke.Got)
		}
		return m, true, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if err := safepath.CheckOwned(path, e); err != nil {
		return m, true, fmt.Errorf("%s is not a marker clyde wrote: %v", path, err)
	}
	b, err := osio.ReadAll(f, markerMax+1)
	if err != nil {
		return m, true, fmt.Errorf("read %s: %w", path, err)
	}
	if m, err = parseMarker(b); err != nil {
		return m, true, fmt.Errorf("%s is not a marker clyde wrote: %v", path, err)
	}
	if m.File != base {
		return m, true, fmt.Errorf("%s names %q, not %q", path, m.File, base)
	}
	return m, true, nil
}

// joinName is name in d, for messages.
func joinName(d osio.Dir, name string) string { return filepath.Join(d.Path(), name) }

// writeMarker creates base's marker in d (it must not exist) and flushes it
// to disk, so that it survives a crash as well as a SIGKILL. A marker that
// could not be written whole is removed again.
func writeMarker(d osio.Dir, m marker) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	name := markerName(m.File)
	f, err := d.Open(osio.Name(name), osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		return fmt.Errorf("create the marker: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(fmt.Errorf("write %s: %w", joinName(d, name), err), d.Remove(osio.Name(name)))
	}
	// Best effort: FUSE filesystems (ntfs-3g) may not sync a directory, and
	// only a power cut, not a killed run, loses an entry that is not synced.
	_ = d.Sync()
	return nil
}

// leftoverError is the refusal of a run whose target has a marker: a run
// still going, or the remains of a killed one. given is the name the user
// typed, so the hint can be pasted as it is.
func leftoverError(given string, m marker) error {
	started := m.Start.Local().Format(time.DateTime)
	switch m.State() {
	case proc.Alive:
		return result.Usagef("--filename", "%s is in use by clyde pid %d (started %s); it is removed when that run ends", given, m.PID, started)
	case proc.Elsewhere:
		return result.Usagef("--filename", "%s was created by clyde pid %d on host %s (started %s), which may still be running there; "+
			"if it is not, run `clyde block --cleanup --force --filename %s`", given, m.PID, m.Host, started, given)
	}
	return result.Usagef("--filename", "%s is left over from a clyde run that was killed (pid %d, started %s); "+
		"run `clyde block --cleanup --filename %s` to remove it", given, m.PID, started, given)
}

// checkLeftover refuses a run on dir/base when base has a marker: whether
// base exists or not, whether the run reads or writes.
func checkLeftover(given, dir, base string) error {
	d, err := safepath.OpenDir(dir)
	if err != nil {
		return nil // creating the file reports it, or the target exists under another parent
	}
	defer d.Close()
	m, found, err := readMarker(d, base)
	switch {
	case !found:
		return nil
	case err != nil:
		return result.Usagef("--filename", "%v; move it away to use %s", err, given)
	}
	return leftoverError(given, m)
}

// CleanupResult says what Cleanup did.
type CleanupResult struct {
	// Removed lists what was removed, the data file before its marker.
	Removed []string
	// Kept lists what was left in place and why.
	Kept []string
}

// Cleanup removes what a killed clyde block run left at filename: the file
// it created and the marker next to it, the marker last. It removes the
// file only when the marker is there, names this host (or force is set:
// another host on shared storage, whose run the caller knows is over), its
// process is gone, and the file is still the one the marker describes
// (device, inode, birth time and size). A file that does not match is kept
// and its stale marker removed. Without a marker it does nothing.
func Cleanup(filename string, force bool) (CleanupResult, error) {
	var res CleanupResult
	dir, base, err := splitTarget(filename)
	if err != nil {
		return res, err
	}
	d, err := safepath.OpenDir(dir)
	if err != nil {
		return res, fmt.Errorf("cleanup: %w", err)
	}
	defer d.Close()
	m, found, err := readMarker(d, base)
	switch {
	case !found:
		return res, nil
	case err != nil:
		return res, fmt.Errorf("cleanup: %w; left it", err)
	}
	state := m.State()
	switch {
	case state == proc.Alive:
		return res, result.Usagef("--filename", "%s is in use by clyde pid %d; it is removed when that run ends", filename, m.PID)
	case state == proc.Elsewhere && !force:
		return res, result.Usagef("--force", "%s was created by clyde pid %d on host %s, which may still be running there; "+
			"clean up on %s, or add --force once that run is over", filename, m.PID, m.Host, m.Host)
	}
	path := joinName(d, base)
	e, err := d.Lstat(osio.Name(base))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Killed after the data file went and before the marker did.
	case err != nil:
		return res, fmt.Errorf("cleanup: %w", err)
	case !markerMatches(m, e, state == proc.Elsewhere):
		res.Kept = append(res.Kept, path+": not the file the killed run created (its device, inode or size differ from the marker's)")
	case safepath.CheckOwned(path, e) != nil:
		res.Kept = append(res.Kept, fmt.Sprintf("%s: not a file clyde created (%v)", path, safepath.CheckOwned(path, e)))
	default:
		if err := d.Remove(osio.Name(base)); err != nil {
			return res, fmt.Errorf("cleanup: %w; the marker is kept, so the cleanup can be run again", err)
		}
		res.Removed = append(res.Removed, path)
	}
	if err := safepath.RemoveOwned(d, markerName(base)); err != nil {
		return res, fmt.Errorf("cleanup: %w", err)
	}
	res.Removed = append(res.Removed, joinName(d, markerName(base)))
	return res, d.Sync()
}

// markerMatches is true when e is the data file m describes. Another host's
// device numbers mean nothing here (NFS numbers its mounts per client), so
// elsewhere compares the rest.
func markerMatches(m marker, e osio.Entry, elsewhere bool) bool {
	if !e.Reg || e.Size != m.Size {
		return false
	}
	if elsewhere {
		return e.ID.SameInode(m.id())
	}
	return e.ID.Same(m.id())
}
