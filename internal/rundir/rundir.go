// Package rundir is clyde's private run directory: clyde.<pid>.<random>,
// mode 0700, made exclusively inside the directory the user named, holding a
// flushed marker that says which run made it. Everything a run creates lives
// in it and is reached through its descriptor (see internal/osio), so a
// directory swapped for a symlink mid-run sends nothing elsewhere. Remove
// takes it all away with the marker last, so an interrupted removal can be
// retried by Cleanup, which touches only directories whose marker it can
// read and whose run is gone.
package rundir

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"time"

	"github.com/clydebench/clyde/internal/atexit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/internal/runlock"
	"github.com/clydebench/clyde/internal/safepath"
)

// Prefix starts the name of every private run directory.
const Prefix = "clyde."

// MarkerName is the file inside every private run directory that lets
// Cleanup recognise a directory clyde made; nothing without it is touched.
const MarkerName = ".clyde-run"

// maxMarkerBytes bounds what is read of a marker.
const maxMarkerBytes = 4096

// namePattern matches only the names Create produces.
var namePattern = regexp.MustCompile(`^clyde\.[0-9]+\.[0-9a-f]{8}$`)

// IsRunName is true for a name Create could have made.
func IsRunName(name string) bool { return namePattern.MatchString(name) }

// Marker is the content of MarkerName: which process made the directory,
// named exactly enough (internal/proc) that a reused pid or a reboot does
// not pass for the run.
type Marker struct {
	Tool string `json:"tool"`
	proc.ID
	Command string `json:"command,omitempty"`
	// Job names the many-client job whose ranks share this directory
	// (clyde fs --shared-dir); nil for a run of its own.
	Job *JobMark `json:"job,omitempty"`
}

// JobMark is a shared tree's job: a hash of its token (a rank opens the
// tree only when it is its own job's), and its ranks' hosts and pids.
type JobMark struct {
	TokenHash string   `json:"token_hash"`
	Hosts     []string `json:"hosts"`
	PIDs      []int    `json:"pids"`
}

// Run is one run's private directory.
type Run struct {
	parent osio.Dir
	// Name is the directory's name in the parent; Path the two joined, for
	// messages.
	Name string
	Path string
	// Dir is the private directory; every create, reopen and unlink of the
	// run goes through it.
	Dir osio.Dir
	id  osio.Identity
	// remove is removeNow, registered with atexit.
	remove func() error
}

// Create makes the private directory in parent (which the caller keeps
// open and closes after Remove) and its marker.
func Create(parent osio.Dir, command string) (*Run, error) { return CreateFor(parent, command, nil) }

// CreateFor is Create for the shared tree of a many-client job: the marker
// names the job.
func CreateFor(parent osio.Dir, command string, job *JobMark) (*Run, error) {
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, fmt.Errorf("make private directory: %w", err)
	}
	name := fmt.Sprintf("%s%d.%s", Prefix, os.Getpid(), hex.EncodeToString(rnd[:]))
	r := &Run{parent: parent, Name: name, Path: joinPath(parent.Path(), name)}
	// On a kernel interface a directory is not storage: in cgroupfs it is
	// a new control group, whose files no unlink removes, so a failed run
	// would leave it. Asked of the descriptor the directory is made in.
	if k := safepath.KernelFSOfFd(parent.Fd()); k != "" {
		return nil, fmt.Errorf("make private directory in %s: it is on %s, a kernel interface, not a filesystem that holds files", parent.Path(), k)
	}
	if err := parent.Mkdir(osio.Name(name), 0o700); err != nil {
		return nil, fmt.Errorf("make private directory: %w", err)
	}
	d, err := parent.OpenSubdir(osio.Name(name))
	if err != nil {
		_ = parent.Remove(osio.Name(name))
		return nil, fmt.Errorf("open private directory: %w", err)
	}
	r.Dir = d
	// Registered before the marker is written, so that an abort (a late
	// second ^C) still removes the directory.
	r.remove = atexit.Register(r.removeNow)
	if r.id, err = d.Identity(); err == nil {
		err = writeMarker(d, command, job)
	}
	if err != nil {
		_ = r.Remove()
		return nil, fmt.Errorf("write marker in %s: %w", r.Path, err)
	}
	return r, nil
}

func joinPath(dir, name string) string {
	if dir == "" || dir[len(dir)-1] == os.PathSeparator || dir[len(dir)-1] == '/' {
		return dir + name
	}
	return dir + string(os.PathSeparator) + name
}

func writeMarker(d osio.Dir, command string, job *JobMark) error {
	m, _ := json.Marshal(Marker{Tool: "clyde", ID: proc.Self(), Command: command, Job: job})
	f, err := d.Open(osio.Name(MarkerName), osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		return err
	}
	return writeFlushed(f, m)
}

// writeFlushed writes a marker's JSON and a newline to f, flushes and
// closes it: a marker survives a crash or a filesystem shutdown that
// leaves the directory or file behind, and Cleanup trusts only a readable
// marker.
func writeFlushed(f osio.File, b []byte) error {
	_, err := f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Join opens another process's private directory in parent: the shared
// tree rank 0 of a many-client job made, or (tokenHash "") another rank's
// own directory, whose files a rank shift reads and removes. name must be a
// name Create makes, the directory this user's, with this user's marker
// (naming the job of tokenHash when it is given). The Run does not own the
// directory: its Remove only closes the descriptor.
func Join(parent osio.Dir, name, tokenHash string) (*Run, error) {
	path := joinPath(parent.Path(), name)
	if !IsRunName(name) {
		return nil, fmt.Errorf("%q is not a clyde run directory", name)
	}
	e, err := parent.Lstat(osio.Name(name))
	if err != nil {
		return nil, fmt.Errorf("%s is not visible here (every rank's -d must show the same shared directory): %w", path, err)
	}
	if e.UID >= 0 && e.UID != os.Geteuid() {
		return nil, fmt.Errorf("%s belongs to uid %d, not to uid %d", path, e.UID, os.Geteuid())
	}
	d, err := parent.OpenSubdir(osio.Name(name))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	m, ok := ReadMarker(d)
	switch {
	case !ok:
		d.Close()
		return nil, fmt.Errorf("%s has no clyde marker of this user", path)
	case tokenHash != "" && (m.Job == nil || m.Job.TokenHash != tokenHash):
		d.Close()
		return nil, fmt.Errorf("%s has no marker of this job", path)
	}
	r := &Run{parent: parent, Name: name, Path: path, Dir: d}
	r.remove = func() error {
		err := r.Dir.Close()
		r.Dir = osio.Dir{}
		return err
	}
	return r, nil
}

// Remove removes everything in the private directory, then its marker, then
// the directory itself, all through descriptors. If the name in the parent
// no longer is the directory Create made (it was renamed or swapped for a
// symlink), the contents are still removed through the descriptor, the
// entry at the name is left alone, and the error says so.
func (r *Run) Remove() error {
	if r == nil || r.remove == nil {
		return nil
	}
	return r.remove()
}

func (r *Run) removeNow() error {
	if r == nil || !r.Dir.Valid() {
		return nil
	}
	err := removeRun(r.parent, r.Dir, r.Name, r.id, r.Path)
	if cerr := r.Dir.Close(); err == nil && cerr != nil {
		err = cerr
	}
	r.Dir = osio.Dir{}
	if err == nil {
		err = checkGone(r.parent, r.Name, r.id, r.Path)
	}
	return err
}

// goneWait bounds how long Remove tries again to remove a private
// directory that outlived its removal.
const goneWait = 2 * time.Second

// checkGone makes sure the private directory went. Where Windows deletes
// with the old semantics (FAT, and Wine), removing a directory only marks
// it, and the removal happens when its last handle closes, or silently
// does not when an entry deleted in it is still open elsewhere then (a
// marker another clyde is reading): Wine left clyde.<pid>.<hex> behind
// that way 1 run in 3 on a busy machine (issue 20, case 16). The
// directory, still the one Create made, is removed again until it goes;
// one still there after goneWait is an error, never silence. Elsewhere the
// name is gone at once and this is one Lstat.
func checkGone(parent osio.Dir, name string, id osio.Identity, path string) error {
	deadline := time.Now().Add(goneWait)
	for {
		e, err := parent.Lstat(osio.Name(name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return fmt.Errorf("check that %s went: %w", path, err)
		case !e.Dir || !e.ID.Same(id):
			return nil // not ours any more: left alone
		}
		rmErr := parent.Remove(osio.Name(name))
		if errors.Is(rmErr, fs.ErrNotExist) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("private directory %s is still there after its removal (%v)", path, rmErr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// removeRun empties d (the marker last) and removes name from parent when it
// still is d.
func removeRun(parent, d osio.Dir, name string, id osio.Identity, path string) error {
	names, err := d.ReadNames()
	if err != nil {
		return fmt.Errorf("list %s: %w", path, err)
	}
	for _, n := range names {
		if n == MarkerName {
			continue
		}
		if err := d.RemoveAll(osio.Name(n)); err != nil {
			return err
		}
	}
	if err := d.Remove(osio.Name(MarkerName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	e, err := parent.Lstat(osio.Name(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("private directory %s was moved away during the run; its contents were removed", path)
	case err != nil:
		return err
	case !e.Dir || !e.ID.Same(id):
		return fmt.Errorf("private directory %s was replaced during the run (now a %s); its contents were removed, the replacement left alone", path, kindOf(e))
	}
	return parent.Remove(osio.Name(name))
}

func kindOf(e osio.Entry) string {
	switch {
	case e.Link:
		return "symlink"
	case e.Dir:
		return "different directory"
	case e.Reg:
		return "file"
	}
	return "special file"
}

// ReadMarker reads the marker of the private directory d, refusing anything
// that is not a small regular file clyde wrote.
func ReadMarker(d osio.Dir) (Marker, bool) {
	var m Marker
	buf, err := readMarkerFile(d, MarkerName)
	if err != nil || len(buf) > maxMarkerBytes || json.Unmarshal(buf, &m) != nil || m.Tool != "clyde" || m.Plausible(time.Now()) != nil {
		return m, false
	}
	return m, true
}

// readMarkerFile reads the marker name in d, at most one byte more than a
// marker may hold. It is opened non-blocking and typed, so a FIFO planted
// as a marker never hangs a run or a cleanup, and only clyde's own file is
// a marker: owned by clyde's user, 0600, one link. A name that does not
// exist is an error wrapping fs.ErrNotExist.
func readMarkerFile(d osio.Dir, name string) ([]byte, error) {
	path := joinPath(d.Path(), name)
	f, e, err := safepath.OpenIn(d, name, osio.ReadOnly, safepath.Regular)
	if err != nil {
		var ke *safepath.KindError
		if errors.As(err, &ke) {
			return nil, fmt.Errorf("%s is not a marker clyde wrote: a %s", path, ke.Got)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if err := safepath.CheckOwned(path, e); err != nil {
		return nil, fmt.Errorf("%s is not a marker clyde wrote: %v", path, err)
	}
	b, err := osio.ReadAll(f, maxMarkerBytes+1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// Holders names the runs whose markers in parent say they are alive, as the
// run lock reports who holds it (runlock.Dir's holders).
func Holders(parent osio.Dir) []runlock.Holder {
	var hs []runlock.Holder
	for _, m := range Live(parent) {
		hs = append(hs, runlock.Holder{PID: m.PID, Host: m.Host, Started: m.Start, Command: m.Command})
	}
	return hs
}

// Live lists the markers of runs in parent whose process is alive on this
// host: who holds the directory when its lock is taken.
func Live(parent osio.Dir) []Marker {
	var live []Marker
	names, _ := parent.ReadNames()
	for _, n := range names {
		if !namePattern.MatchString(n) {
			continue
		}
		d, err := parent.OpenSubdir(osio.Name(n))
		if err != nil {
			continue
		}
		m, ok := ReadMarker(d)
		d.Close()
		if ok && m.State() == proc.Alive {
			live = append(live, m)
		}
	}
	return live
}

// CleanupReport is what Cleanup or CleanupFile did.
type CleanupReport struct {
	// Removed lists what was removed, in order (a data file before its
	// marker).
	Removed []string
	// Skipped names each directory or file left alone and why.
	Skipped []string
}

// Cleanup removes what killed runs left in dir: private directories that
// carry clyde's marker and whose process is gone. A directory whose run is
// alive on this host is skipped; one made on another host (a run on a shared
// filesystem) is skipped unless force is set. Nothing without a readable
// marker is touched, and the marker goes last, so a failed cleanup can be
// run again.
func Cleanup(path string, force bool) (CleanupReport, error) {
	var rep CleanupReport
	parent, err := safepath.OpenDir(path)
	if err != nil {
		return rep, fmt.Errorf("cleanup: %w", err)
	}
	defer parent.Close()
	names, err := parent.ReadNames()
	if err != nil {
		return rep, fmt.Errorf("cleanup: %w", err)
	}
	for _, n := range names {
		if !namePattern.MatchString(n) {
			continue
		}
		p := joinPath(path, n)
		e, err := parent.Lstat(osio.Name(n))
		if err != nil || !e.Dir || (e.UID >= 0 && e.UID != os.Geteuid()) {
			continue // only a directory clyde's user made is a run's
		}
		d, err := parent.OpenSubdir(osio.Name(n))
		if err != nil {
			continue
		}
		m, ok := ReadMarker(d)
		switch {
		case !ok:
			d.Close()
			continue
		case m.State() == proc.Alive:
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: in use by clyde pid %d", p, m.PID))
			d.Close()
			continue
		case m.State() == proc.Elsewhere && !force:
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: made by pid %d on host %s, which may still be running; --force removes it", p, m.PID, m.Host))
			d.Close()
			continue
		}
		err = removeRun(parent, d, n, e.ID, p)
		d.Close()
		if err != nil {
			return rep, fmt.Errorf("cleanup: remove %s: %w", p, err)
		}
		rep.Removed = append(rep.Removed, p)
	}
	return rep, nil
}
