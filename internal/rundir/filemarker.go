package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// A file clyde block creates outside a private directory gets a marker
// next to it, in the same directory: ".NAME.clyde-run". A run killed with
// SIGKILL (or a crash) leaves both; the marker is what lets `clyde block
// --cleanup` tell that file from a user's, and what makes the next run
// refuse it rather than take it for the user's data. The data file is
// created first and the marker, which records its identity, right after;
// on the way out the data file goes first and the marker last, so a
// removal that fails can be run again. The marker is read by the rules of
// a private directory's (readMarkerFile): clyde's own regular file, a
// start time that can be true.
const (
	fileMarkerTool = "clyde"
	fileMarkerKind = "block-target"
)

// FileMarkerName is the marker's name for the data file base.
func FileMarkerName(base string) string { return "." + base + ".clyde-run" }

// FileMarker is the marker's JSON.
type FileMarker struct {
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

// NewFileMarker describes the data file base that this process just
// created, e its entry (sized).
func NewFileMarker(base string, e osio.Entry) FileMarker {
	return FileMarker{Tool: fileMarkerTool, Kind: fileMarkerKind, File: base, ID: proc.Self(),
		Dev: e.ID.Dev, Ino: e.ID.Ino, BirthNs: e.ID.Birth, Size: e.Size}
}

// Identity is the data file's identity as the marker records it.
func (m FileMarker) Identity() osio.Identity {
	return osio.Identity{Dev: m.Dev, Ino: m.Ino, Birth: m.BirthNs}
}

// parseFileMarker reads a marker and checks every field a decision rests on.
func parseFileMarker(b []byte) (FileMarker, error) {
	var m FileMarker
	if len(b) > maxMarkerBytes {
		return m, fmt.Errorf("%d bytes, more than a marker's %d", len(b), maxMarkerBytes)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("not JSON: %w", err)
	}
	switch {
	case m.Tool != fileMarkerTool || m.Kind != fileMarkerKind:
		return m, fmt.Errorf("tool %q kind %q, want %q %q", m.Tool, m.Kind, fileMarkerTool, fileMarkerKind)
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

// ReadFileMarker reads the marker of base in d. found is false when there
// is none; an entry by that name that is not a marker clyde wrote is an
// error.
func ReadFileMarker(d osio.Dir, base string) (m FileMarker, found bool, err error) {
	name := FileMarkerName(base)
	path := joinPath(d.Path(), name)
	b, err := readMarkerFile(d, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m, false, nil
	case err != nil:
		return m, true, err
	}
	if m, err = parseFileMarker(b); err != nil {
		return m, true, fmt.Errorf("%s is not a marker clyde wrote: %v", path, err)
	}
	if m.File != base {
		return m, true, fmt.Errorf("%s names %q, not %q", path, m.File, base)
	}
	return m, true, nil
}

// WriteFileMarker creates m's marker in d (it must not exist) and flushes
// it to disk, so that it survives a crash as well as a SIGKILL. A marker
// that could not be written whole is removed again.
func WriteFileMarker(d osio.Dir, m FileMarker) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	name := FileMarkerName(m.File)
	f, err := d.Open(osio.Name(name), osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		return fmt.Errorf("create the marker: %w", err)
	}
	if err := writeFlushed(f, b); err != nil {
		return errors.Join(fmt.Errorf("write %s: %w", joinPath(d.Path(), name), err), d.Remove(osio.Name(name)))
	}
	// Best effort: FUSE filesystems (ntfs-3g) may not sync a directory, and
	// only a power cut, not a killed run, loses an entry that is not synced.
	_ = d.Sync()
	return nil
}

// leftoverError is the refusal of a run whose target has a marker: a run
// still going, or the remains of a killed one. given is the name the user
// typed, so the hint can be pasted as it is.
func leftoverError(given string, m FileMarker) error {
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

// CheckLeftover refuses a run on dir/base when base has a marker: whether
// base exists or not, whether the run reads or writes. given is the name
// the user typed.
func CheckLeftover(given, dir, base string) error {
	d, err := safepath.OpenDir(dir)
	if err != nil {
		return nil // creating the file reports it, or the target exists under another parent
	}
	defer d.Close()
	m, found, err := ReadFileMarker(d, base)
	switch {
	case !found:
		return nil
	case err != nil:
		return result.Usagef("--filename", "%v; move it away to use %s", err, given)
	}
	return leftoverError(given, m)
}

// CleanupFile removes what a killed clyde block run left at dir/base (the
// user typed given): the file it created and the marker next to it, the
// marker last. It removes the file only when the marker is there, names
// this host (or force is set: another host on shared storage, whose run
// the caller knows is over), its process is gone, and the file is still
// the one the marker describes (device, inode, birth time and size). A file
// that does not match is kept and its stale marker removed. Without a
// marker it does nothing.
func CleanupFile(dir, base, given string, force bool) (CleanupReport, error) {
	var rep CleanupReport
	d, err := safepath.OpenDir(dir)
	if err != nil {
		return rep, fmt.Errorf("cleanup: %w", err)
	}
	defer d.Close()
	m, found, err := ReadFileMarker(d, base)
	switch {
	case !found:
		return rep, nil
	case err != nil:
		return rep, fmt.Errorf("cleanup: %w; left it", err)
	}
	state := m.State()
	switch {
	case state == proc.Alive:
		return rep, result.Usagef("--filename", "%s is in use by clyde pid %d; it is removed when that run ends", given, m.PID)
	case state == proc.Elsewhere && !force:
		return rep, result.Usagef("--force", "%s was created by clyde pid %d on host %s, which may still be running there; "+
			"clean up on %s, or add --force once that run is over", given, m.PID, m.Host, m.Host)
	}
	if err := removeMarkedFile(d, base, m, state == proc.Elsewhere, &rep); err != nil {
		return rep, err
	}
	if err := safepath.RemoveOwned(d, FileMarkerName(base)); err != nil {
		return rep, fmt.Errorf("cleanup: %w", err)
	}
	rep.Removed = append(rep.Removed, joinPath(d.Path(), FileMarkerName(base)))
	return rep, d.Sync()
}

// removeMarkedFile removes base from d when it is the file m describes and
// clyde's own (safepath.CheckOwned), and records it in rep as removed, or
// kept and why.
func removeMarkedFile(d osio.Dir, base string, m FileMarker, elsewhere bool, rep *CleanupReport) error {
	path := joinPath(d.Path(), base)
	e, err := d.Lstat(osio.Name(base))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Killed after the data file went and before the marker did.
	case err != nil:
		return fmt.Errorf("cleanup: %w", err)
	case !markerMatches(m, e, elsewhere):
		rep.Skipped = append(rep.Skipped, path+": not the file the killed run created (its device, inode or size differ from the marker's)")
	case safepath.CheckOwned(path, e) != nil:
		rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: not a file clyde created (%v)", path, safepath.CheckOwned(path, e)))
	default:
		if err := d.Remove(osio.Name(base)); err != nil {
			return fmt.Errorf("cleanup: %w; the marker is kept, so the cleanup can be run again", err)
		}
		rep.Removed = append(rep.Removed, path)
	}
	return nil
}

// markerMatches is true when e is the data file m describes. Another host's
// device numbers mean nothing here (NFS numbers its mounts per client), so
// elsewhere compares the rest.
func markerMatches(m FileMarker, e osio.Entry, elsewhere bool) bool {
	if !e.Reg || e.Size != m.Size {
		return false
	}
	if elsewhere {
		return e.ID.SameInode(m.Identity())
	}
	return e.ID.Same(m.Identity())
}
