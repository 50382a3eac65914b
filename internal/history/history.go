// Package history keeps every run in an embedded SQLite database
// (modernc.org/sqlite, pure Go), so cron jobs can compare a run with the ones
// before it. Each save is one transaction in WAL mode: a process killed while
// saving leaves the database as it was before that save.
package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/clydebench/clyde/internal/outfile"
)

// DefaultPath is where the history lives: $CLYDE_DB, else
// $XDG_DATA_HOME/clyde/history.db, else ~/.local/share/clyde/history.db.
func DefaultPath(getenv func(string) string) (string, error) {
	if p := getenv("CLYDE_DB"); p != "" {
		return p, nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "clyde", "history.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("history location: no XDG_DATA_HOME and no home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "clyde", "history.db"), nil
}

// Entry is one saved run.
type Entry struct {
	ID        int64
	Kind      string // "fs" or "block"
	Host      string
	Target    string // directory (fs) or file/device (block)
	Params    string // canonical parameters; equal for comparable runs
	StartTime time.Time
	// Summary is a short line of key figures for listings.
	Summary string
	// Label is the run's own name for itself (fs -m, a block preset);
	// Flags the options that decided what it measured ("-s 2048 -n 16").
	// Runs saved before clyde kept them have "".
	Label string
	Flags string
	// Flagged is why the regression check flagged the run ("" when it did
	// not): a flagged run stays out of later runs' baselines.
	Flagged string
	// Volume names the target by its filesystem instead of its path:
	// "ID:path within the filesystem" (compare.Run.Volume), the ID being
	// the UUID, creation time and device that tell the filesystem from a
	// clone of it; the same filesystem mounted elsewhere keeps it. "" where
	// none was read, and for runs saved before clyde recorded the device
	// (migrateVolumes).
	Volume string
	// JSON is the full saved result.
	JSON []byte
}

// Store is an open history database.
type Store struct {
	db   *sql.DB
	path string
	// hasRuns is false for a database without clyde's table yet (an empty
	// file opened read-only): it holds no runs.
	hasRuns bool
	// immutable is set for a read-only store opened without locks (no
	// writer was there); opened is the file as it was then.
	immutable bool
	opened    fs.FileInfo
	// cols holds the runs table's columns; a database from before the
	// optional columns were added lacks them until it is opened for
	// writing.
	cols map[string]bool
}

// busyTimeout is how long a writer waits for another writer before giving up.
const busyTimeout = 5 * time.Second

const schema = `
CREATE TABLE IF NOT EXISTS runs (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	kind       TEXT NOT NULL,
	host       TEXT NOT NULL,
	target     TEXT NOT NULL,
	params     TEXT NOT NULL,
	start_time INTEGER NOT NULL,
	summary    TEXT NOT NULL,
	result     BLOB NOT NULL,
	label      TEXT NOT NULL DEFAULT '',
	flags      TEXT NOT NULL DEFAULT '',
	flagged    TEXT NOT NULL DEFAULT '',
	volume     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_comparable ON runs (host, target, kind, params, start_time);
CREATE INDEX IF NOT EXISTS runs_start ON runs (start_time);
`

// ErrNoHistory is returned by OpenReadOnly for a path where no database
// exists: nothing has been saved there yet (or CLYDE_DB/--db points
// elsewhere than the runs went).
var ErrNoHistory = errors.New("no history")

// clydeColumns are the columns of clyde's runs table; a runs table without
// them is another program's.
var clydeColumns = []string{"id", "kind", "host", "target", "params", "start_time", "summary", "result"}

// addedColumns came later; Open adds those an older database lacks
// (ALTER TABLE ADD COLUMN keeps every row, with the default).
var addedColumns = []struct{ name, decl string }{
	{"label", "TEXT NOT NULL DEFAULT ''"},
	{"flags", "TEXT NOT NULL DEFAULT ''"},
	{"flagged", "TEXT NOT NULL DEFAULT ''"},
	{"volume", "TEXT NOT NULL DEFAULT ''"},
}

// Open opens the history at path for saving, creating it and its directory
// if needed. A database that holds tables that are not clyde's is refused
// before anything is written to it: clyde does not add its table to
// another program's file. A database another process holds locked for
// longer than a few seconds, or one that is not a database, gives an error
// that says so on one line.
func Open(path string) (*Store, error) {
	path, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	// journal_mode(WAL) is not in the DSN: it rewrites the file's header,
	// and a foreign database must be refused before anything is written.
	dsn := fileURI(path) + "?_pragma=busy_timeout(" + fmt.Sprint(busyTimeout.Milliseconds()) + ")" +
		"&_pragma=synchronous(FULL)&_txlock=immediate"
	s, err := open(path, dsn)
	if err != nil {
		return nil, err
	}
	for _, stmt := range []string{"PRAGMA journal_mode=WAL", schema} {
		if err := execSetup(s.db, stmt); err != nil {
			s.Close()
			return nil, describe(path, err)
		}
	}
	if err := s.addColumns(); err != nil {
		s.Close()
		return nil, describe(path, err)
	}
	if err := s.migrateVolumes(); err != nil {
		s.Close()
		return nil, describe(path, err)
	}
	s.hasRuns = true
	return s, nil
}

// knownVolume is SQL true for a volume with a device in it (UUID[+TIME]@
// DEVICE:path: the first "@" comes before the first ":", as neither is in a
// UUID or an NTFS serial); the "UUID:path" of runs saved before clyde
// recorded devices has its first ":" first.
const knownVolume = "(instr(volume, '@') > 0 AND instr(volume, '@') < instr(volume, ':'))"

// volumesVersion is the history's user_version once migrateVolumes ran.
const volumesVersion = 1

// migrateVolumes clears the volume of runs saved before clyde recorded
// the device a filesystem is on: their "UUID:path" named a filesystem by
// its UUID alone, which a dd or cp clone shares, so a run on the clone
// took them for its own. Those runs are then found by their target path,
// as runs saved without a volume always were; their results are kept
// whole. Once per database (PRAGMA user_version), in one immediate
// transaction.
func (s *Store) migrateVolumes() error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var version int
	if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version >= volumesVersion {
		return nil
	}
	if _, err := tx.Exec("UPDATE runs SET volume = '' WHERE volume <> '' AND NOT " + knownVolume); err != nil {
		return err
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", volumesVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// addColumns adds the columns an older history lacks, in one immediate
// transaction (the DSN's _txlock) that reads the columns again, so two
// processes opening the same old file do not both add them.
func (s *Store) addColumns() error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	cols, err := tableColumns(tx)
	if err != nil {
		return err
	}
	for _, c := range addedColumns {
		if cols[c.name] {
			continue
		}
		if _, err := tx.Exec("ALTER TABLE runs ADD COLUMN " + c.name + " " + c.decl); err != nil {
			return err
		}
		cols[c.name] = true
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.cols = cols
	return nil
}

// querier is what tableColumns reads through: the database or a
// transaction.
type querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

func tableColumns(q querier) (map[string]bool, error) {
	rows, err := q.Query("SELECT name FROM pragma_table_info('runs')")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		cols[name] = true
	}
	return cols, rows.Err()
}

// OpenReadOnly opens an existing history for reading and creates nothing:
// no directory, no database, and, when no writer has the database open
// (no -wal file beside it), not even SQLite's -wal and -shm files, which a
// read-only connection would otherwise leave behind. A missing path is
// ErrNoHistory.
func OpenReadOnly(path string) (*Store, error) {
	given := path
	path, err := resolve(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w at %s", ErrNoHistory, given)
	case err != nil:
		return nil, fmt.Errorf("history %s: %w", path, pathErr(err))
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("history %s is not a regular file", path)
	}
	_, walErr := os.Stat(path + "-wal")
	immutable := errors.Is(walErr, fs.ErrNotExist)
	s, err := open(path, readOnlyDSN(path, immutable))
	if err != nil {
		return nil, err
	}
	s.immutable, s.opened = immutable, fi
	return s, nil
}

func readOnlyDSN(path string, immutable bool) string {
	dsn := fileURI(path) + "?mode=ro&_pragma=busy_timeout(" + fmt.Sprint(busyTimeout.Milliseconds()) + ")"
	if immutable {
		// With no -wal file, every committed run is in the main file;
		// immutable reads it without the locks and -shm a WAL reader
		// needs. read falls back to a shared reader if a writer came.
		dsn += "&immutable=1"
	}
	return dsn
}

// open opens dsn on one connection and checks the schema is clyde's.
func open(path, dsn string) (*Store, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, describe(path, err)
	}
	// One connection: SQLite serialises writers anyway, and a single
	// connection keeps transactions and pragmas on the same handle.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path}
	if s.hasRuns, s.cols, err = checkSchema(db, path); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkSchema refuses a database holding anything that is not clyde's:
// another table, a view or trigger, or a runs table of another shape. It
// reports whether clyde's runs table is there (a new, empty file has none)
// and its columns.
func checkSchema(db *sql.DB, path string) (bool, map[string]bool, error) {
	rows, err := db.Query("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view', 'trigger') ORDER BY name")
	if err != nil {
		return false, nil, describe(path, err)
	}
	defer rows.Close()
	hasRuns := false
	for rows.Next() {
		var typ, name string
		if err := rows.Scan(&typ, &name); err != nil {
			return false, nil, describe(path, err)
		}
		switch {
		case typ == "table" && name == "runs":
			hasRuns = true
		case typ == "table" && strings.HasPrefix(name, "sqlite_"): // SQLite's own (AUTOINCREMENT's counters)
		default:
			return false, nil, foreign(path, typ, name)
		}
	}
	if err := rows.Err(); err != nil {
		return false, nil, describe(path, err)
	}
	if !hasRuns {
		return false, map[string]bool{}, nil
	}
	cols, err := tableColumns(db)
	if err != nil {
		return false, nil, describe(path, err)
	}
	for _, c := range clydeColumns {
		if !cols[c] {
			return false, nil, fmt.Errorf("history %s holds a table \"runs\" without clyde's column %q: it is another program's database; give --db or CLYDE_DB a file of clyde's own", path, c)
		}
	}
	return true, cols, nil
}

func foreign(path, typ, name string) error {
	return fmt.Errorf("history %s holds %s %q, which is not clyde's: it is another program's database, and clyde adds nothing to it; give --db or CLYDE_DB a file of clyde's own", path, typ, name)
}

// fileURI makes path an SQLite URI ("file:" form, so mode=ro and immutable
// apply), escaping what a URI would read as its query or fragment.
func fileURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// absent is true for a path that does not exist, or has a file where a
// directory should be on the way (then the walk up says which).
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// pathErr drops the operation and path *fs.PathError adds.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// CheckReadable checks, before a run that only reads the history (a
// regression check with --no-history), that an existing file at path is a
// clyde history; a missing one is fine: there is nothing to compare with.
func CheckReadable(path string) error {
	s, err := OpenReadOnly(path)
	if errors.Is(err, ErrNoHistory) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.Close()
}

// CheckWritable checks, before a run, that its result can be saved at path,
// creating nothing: an existing file must be a clyde history (or an empty
// database) that clyde may write, with its directory writable for SQLite's
// side files; for a new one, the nearest existing directory on the way
// must be writable, so that Open can create the rest after the run.
func CheckWritable(path string) error {
	path, err := resolve(path)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		s, err := OpenReadOnly(path)
		if err != nil {
			return err
		}
		s.Close()
		for _, p := range []string{path, filepath.Dir(path)} {
			if err := outfile.Writable(p); err != nil {
				return fmt.Errorf("history %s cannot be written: %s: %v", path, p, err)
			}
		}
		return nil
	} else if !absent(err) {
		return fmt.Errorf("history %s: %w", path, pathErr(err))
	}
	dir := filepath.Dir(path)
	for {
		fi, err := os.Stat(dir)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("history %s cannot be created: %s is not a directory", path, dir)
		case err == nil:
			if err := outfile.Writable(dir); err != nil {
				return fmt.Errorf("history %s cannot be created: %s: %v", path, dir, err)
			}
			return nil
		case !absent(err):
			return fmt.Errorf("history %s cannot be created: %w", path, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("history %s cannot be created: no directory on its path exists", path)
		}
		dir = parent
	}
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// execSetup runs one of Open's setup statements, retrying for up to
// busyTimeout while the database is busy. SQLite's busy handler does not
// cover them: two processes opening a new history at once (two cron jobs
// starting together) can each hold a read lock the other's journal-mode
// change or CREATE needs, and SQLite answers one of them SQLITE_BUSY at
// once rather than wait for a lock that would never come. Backing off and
// trying again ends that.
func execSetup(db *sql.DB, stmt string) error {
	deadline := time.Now().Add(busyTimeout)
	for {
		_, err := db.Exec(stmt)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func isBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// describe turns SQLite's errors into one line naming the database and
// what to do.
func describe(path string, err error) error {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	switch {
	case isBusy(err):
		return fmt.Errorf("history %s is locked by another process (busy for over %s)", path, busyTimeout)
	case strings.Contains(msg, "SQLITE_CORRUPT") || strings.Contains(msg, "malformed") ||
		strings.Contains(msg, "SQLITE_NOTADB") || strings.Contains(msg, "not a database"):
		return fmt.Errorf("history %s is damaged or not a database (%s); move it aside to start a new one", path, msg)
	}
	return fmt.Errorf("history %s: %s", path, msg)
}

// Save stores e in one transaction and returns its id.
func (s *Store) Save(ctx context.Context, e Entry) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, describe(s.path, err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	res, err := tx.ExecContext(ctx,
		`INSERT INTO runs (kind, host, target, params, start_time, summary, result, label, flags, flagged, volume) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Kind, e.Host, e.Target, e.Params, e.StartTime.UnixNano(), e.Summary, e.JSON, e.Label, e.Flags, e.Flagged, e.Volume)
	if err != nil {
		return 0, describe(s.path, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, describe(s.path, err)
	}
	if saveHook != nil {
		saveHook()
	}
	if err := tx.Commit(); err != nil {
		return 0, describe(s.path, err)
	}
	return id, nil
}

// saveHook runs inside Save's transaction, before the commit; tests use it
// to kill a process mid-save.
var saveHook func()

// Filter selects entries; zero fields match everything.
type Filter struct {
	Host   string
	Target string
	// Targets matches any of these targets (with Target, if set): the forms
	// one directory was saved under ("mnt", "/srv/mnt", a symlink's target).
	Targets []string
	// Volume, when set, also matches a run saved with this Entry.Volume,
	// whatever its target path: the same filesystem mounted elsewhere. A
	// run saved on the same path with another known volume (a clone of
	// the filesystem, another disk mounted there) is then left out.
	Volume string
	Kind   string
	Params string
	Since  time.Time
	// BeforeID keeps entries older than this id (0: no bound).
	BeforeID int64
	// Limit caps the count, newest first (0: no cap).
	Limit int
	// Unflagged leaves out runs the regression check flagged: a baseline
	// is made of the runs that did not regress.
	Unflagged bool
	// WithJSON loads the full results too.
	WithJSON bool
}

// Query returns matching entries, newest first.
func (s *Store) Query(ctx context.Context, f Filter) ([]Entry, error) {
	if !s.hasRuns {
		return nil, nil
	}
	cols := "id, kind, host, target, params, start_time, summary, " + s.optional()
	if f.WithJSON {
		cols += ", result"
	}
	q := "SELECT " + cols + " FROM runs WHERE 1=1"
	if f.Unflagged && s.cols["flagged"] {
		q += " AND flagged = ''"
	}
	var args []any
	for _, c := range []struct {
		col, val string
	}{{"host", f.Host}, {"kind", f.Kind}, {"params", f.Params}} {
		if c.val != "" {
			q += " AND " + c.col + " = ?"
			args = append(args, c.val)
		}
	}
	// The target: its path (Target and any of Targets), or its volume.
	var target []string
	if f.Target != "" {
		target = append(target, "target = ?")
		args = append(args, f.Target)
	}
	if len(f.Targets) > 0 {
		target = append(target, "target IN (?"+strings.Repeat(", ?", len(f.Targets)-1)+")")
		for _, t := range f.Targets {
			args = append(args, t)
		}
	}
	if len(target) > 0 {
		cond := strings.Join(target, " AND ")
		if f.Volume != "" && s.cols["volume"] {
			cond = "((" + cond + ") AND (volume = ? OR NOT " + knownVolume + ")) OR volume = ?"
			args = append(args, f.Volume, f.Volume)
		}
		q += " AND (" + cond + ")"
	}
	if !f.Since.IsZero() {
		q += " AND start_time >= ?"
		args = append(args, f.Since.UnixNano())
	}
	if f.BeforeID > 0 {
		q += " AND id < ?"
		args = append(args, f.BeforeID)
	}
	q += " ORDER BY id DESC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	var out []Entry
	err := s.read(func() error {
		out = nil
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e Entry
			var start int64
			dst := []any{&e.ID, &e.Kind, &e.Host, &e.Target, &e.Params, &start, &e.Summary, &e.Label, &e.Flags, &e.Flagged, &e.Volume}
			if f.WithJSON {
				dst = append(dst, &e.JSON)
			}
			if err := rows.Scan(dst...); err != nil {
				return err
			}
			e.StartTime = time.Unix(0, start).UTC()
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, describe(s.path, err)
	}
	return out, nil
}

// optional selects the added columns, ” for those an older database
// opened read-only lacks.
func (s *Store) optional() string {
	var out []string
	for _, c := range addedColumns {
		if s.cols[c.name] {
			out = append(out, c.name)
		} else {
			out = append(out, "''")
		}
	}
	return strings.Join(out, ", ")
}

// Flag records that the regression check flagged run id, and why, so later
// checks keep it out of their baselines (Filter.Unflagged).
func (s *Store) Flag(ctx context.Context, id int64, why string) error {
	if why == "" {
		why = "regression"
	}
	res, err := s.db.ExecContext(ctx, `UPDATE runs SET flagged = ? WHERE id = ?`, why, id)
	if err != nil {
		return describe(s.path, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("%w: %d is not in %s", ErrUnknownID, id, s.path)
	}
	return nil
}

// errNoTable stands for a query on a database without clyde's table yet.
var errNoTable = errors.New("no runs table")

// read runs fn, which reads the database. A store opened immutable (no
// writer was there) runs it again on an ordinary read-only connection
// when a writer has touched the file since: an immutable reader takes no
// lock, so it could have seen a checkpoint half done.
func (s *Store) read(fn func() error) error {
	if !s.hasRuns {
		return errNoTable
	}
	err := fn()
	if !s.immutable || !s.changed() {
		return err
	}
	db, oerr := sql.Open("sqlite", readOnlyDSN(s.path, false))
	if oerr != nil {
		return oerr
	}
	db.SetMaxOpenConns(1)
	s.db.Close()
	s.db, s.immutable = db, false
	return fn()
}

// changed reports whether the file differs from when the store was opened,
// or a writer has it open now (its -wal file exists).
func (s *Store) changed() bool {
	fi, err := os.Stat(s.path)
	if err != nil || fi.Size() != s.opened.Size() || !fi.ModTime().Equal(s.opened.ModTime()) {
		return true
	}
	_, err = os.Stat(s.path + "-wal")
	return err == nil
}

// ErrUnknownID is returned by Get for an id the history does not hold.
var ErrUnknownID = errors.New("no such history entry")

// Get returns one entry with its JSON.
func (s *Store) Get(ctx context.Context, id int64) (Entry, error) {
	var e Entry
	var start int64
	err := s.read(func() error {
		return s.db.QueryRowContext(ctx,
			`SELECT id, kind, host, target, params, start_time, summary, `+s.optional()+`, result FROM runs WHERE id = ?`, id).
			Scan(&e.ID, &e.Kind, &e.Host, &e.Target, &e.Params, &start, &e.Summary, &e.Label, &e.Flags, &e.Flagged, &e.Volume, &e.JSON)
	})
	if errors.Is(err, sql.ErrNoRows) || errors.Is(err, errNoTable) {
		return e, fmt.Errorf("%w: %d is not in %s", ErrUnknownID, id, s.path)
	}
	if err != nil {
		return e, describe(s.path, err)
	}
	e.StartTime = time.Unix(0, start).UTC()
	return e, nil
}

// partialPrefix begins the Flagged reason of a partial run.
const partialPrefix = "partial: "

// Partial is the Flagged reason of a run a stop ended before it finished
// (a signal, its time bound), why being what stopped it and where: like a
// run the regression check flagged, it stays out of every later baseline
// (Filter.Unflagged).
func Partial(why string) string { return partialPrefix + why }

// IsPartial reports whether the entry is a run a stop ended (Partial).
func (e Entry) IsPartial() bool { return strings.HasPrefix(e.Flagged, partialPrefix) }
