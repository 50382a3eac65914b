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
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
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
	// JSON is the full saved result.
	JSON []byte
}

// Store is an open history database.
type Store struct {
	db   *sql.DB
	path string
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
	result     BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_comparable ON runs (host, target, kind, params, start_time);
CREATE INDEX IF NOT EXISTS runs_start ON runs (start_time);
`

// Open opens (creating if needed) the history at path. A database another
// process holds locked for longer than a few seconds, or one that is not
// a clyde history, gives an error that says so on one line.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(" + fmt.Sprint(busyTimeout.Milliseconds()) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, describe(path, err)
	}
	// One connection: SQLite serialises writers anyway, and a single
	// connection keeps transactions and pragmas on the same handle.
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, describe(path, err)
	}
	return &Store{db: db, path: path}, nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// describe turns SQLite's errors into one line naming the database and
// what to do.
func describe(path string, err error) error {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	switch {
	case strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked"):
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
		`INSERT INTO runs (kind, host, target, params, start_time, summary, result) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		e.Kind, e.Host, e.Target, e.Params, e.StartTime.UnixNano(), e.Summary, e.JSON)
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
	Kind   string
	Params string
	Since  time.Time
	// BeforeID keeps entries older than this id (0: no bound).
	BeforeID int64
	// Limit caps the count, newest first (0: no cap).
	Limit int
	// WithJSON loads the full results too.
	WithJSON bool
}

// Query returns matching entries, newest first.
func (s *Store) Query(ctx context.Context, f Filter) ([]Entry, error) {
	cols := "id, kind, host, target, params, start_time, summary"
	if f.WithJSON {
		cols += ", result"
	}
	q := "SELECT " + cols + " FROM runs WHERE 1=1"
	var args []any
	for _, c := range []struct {
		col, val string
	}{{"host", f.Host}, {"target", f.Target}, {"kind", f.Kind}, {"params", f.Params}} {
		if c.val != "" {
			q += " AND " + c.col + " = ?"
			args = append(args, c.val)
		}
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
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, describe(s.path, err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var start int64
		dst := []any{&e.ID, &e.Kind, &e.Host, &e.Target, &e.Params, &start, &e.Summary}
		if f.WithJSON {
			dst = append(dst, &e.JSON)
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, describe(s.path, err)
		}
		e.StartTime = time.Unix(0, start).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, describe(s.path, err)
	}
	return out, nil
}

// ErrUnknownID is returned by Get for an id the history does not hold.
var ErrUnknownID = errors.New("no such history entry")

// Get returns one entry with its JSON.
func (s *Store) Get(ctx context.Context, id int64) (Entry, error) {
	var e Entry
	var start int64
	err := s.db.QueryRowContext(ctx,
		`SELECT id, kind, host, target, params, start_time, summary, result FROM runs WHERE id = ?`, id).
		Scan(&e.ID, &e.Kind, &e.Host, &e.Target, &e.Params, &start, &e.Summary, &e.JSON)
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("%w: %d is not in %s", ErrUnknownID, id, s.path)
	}
	if err != nil {
		return e, describe(s.path, err)
	}
	e.StartTime = time.Unix(0, start).UTC()
	return e, nil
}
