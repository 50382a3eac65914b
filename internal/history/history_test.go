package history

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

func entry(i int) Entry {
	return Entry{Kind: "fs", Host: "box" + strconv.Itoa(i%2), Target: "/mnt/ssd", Params: `{"p":1}`,
		StartTime: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC), Summary: fmt.Sprintf("run %d", i),
		JSON: []byte(fmt.Sprintf(`{"kind":"fs","schema_version":1,"n":%d}`, i))}
}

func TestSaveAndQuery(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "sub", "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var ids []int64
	for i := range 6 {
		id, err := s.Save(ctx, entry(i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	tests := []struct {
		name string
		f    Filter
		want []int64
	}{
		{"all newest first", Filter{}, []int64{ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}},
		{"host", Filter{Host: "box1"}, []int64{ids[5], ids[3], ids[1]}},
		{"limit", Filter{Limit: 2}, []int64{ids[5], ids[4]}},
		{"since", Filter{Since: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}, []int64{ids[5], ids[4]}},
		{"before id", Filter{BeforeID: ids[2]}, []int64{ids[1], ids[0]}},
		{"other target", Filter{Target: "/elsewhere"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Query(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var gotIDs []int64
			for _, e := range got {
				gotIDs = append(gotIDs, e.ID)
			}
			if fmt.Sprint(gotIDs) != fmt.Sprint(tc.want) {
				t.Fatalf("ids %v, want %v", gotIDs, tc.want)
			}
		})
	}
	e, err := s.Get(ctx, ids[3])
	if err != nil || string(e.JSON) != string(entry(3).JSON) || !e.StartTime.Equal(entry(3).StartTime) || e.Summary != "run 3" {
		t.Fatalf("Get: %+v, %v", e, err)
	}
	if _, err := s.Get(ctx, 999); err == nil {
		t.Fatal("Get of an unknown id succeeded")
	}
}

func TestTwoWritersAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	const each = 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	start := make(chan struct{})
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(path)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			<-start
			for i := range each {
				if _, err := s.Save(context.Background(), entry(w*each+i)); err != nil {
					errs <- err
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all, err := s.Query(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2*each {
		t.Fatalf("%d runs saved, want %d", len(all), 2*each)
	}
}

// TestKilledDuringSave kills a helper process while its save transaction is
// open; the database must still open and hold every earlier run.
func TestKilledDuringSave(t *testing.T) {
	if os.Getenv("CLYDE_HISTORY_HELPER") != "" {
		return
	}
	path := filepath.Join(t.TempDir(), "h.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSaveHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "CLYDE_HISTORY_HELPER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	inSave := false
	for sc.Scan() {
		if sc.Text() == "in-transaction" {
			inSave = true
			break
		}
	}
	if !inSave {
		cmd.Wait()
		t.Fatal("helper never reached the middle of its save")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	s, err := Open(path)
	if err != nil {
		t.Fatalf("database after the kill: %v", err)
	}
	defer s.Close()
	all, err := s.Query(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != helperSaves {
		t.Fatalf("%d runs after the kill, want the %d saved before it", len(all), helperSaves)
	}
	for i, e := range all {
		if want := fmt.Sprintf("run %d", helperSaves-1-i); e.Summary != want {
			t.Fatalf("entry %d is %q, want %q", i, e.Summary, want)
		}
	}
	if _, err := s.Save(context.Background(), entry(99)); err != nil {
		t.Fatalf("save after the kill: %v", err)
	}
}

const helperSaves = 5

// TestSaveHelper is the process TestKilledDuringSave kills: it saves
// helperSaves runs, then stops inside the next save's transaction.
func TestSaveHelper(t *testing.T) {
	path := os.Getenv("CLYDE_HISTORY_HELPER")
	if path == "" {
		clydetest.Skip(t, "helper process for TestKilledDuringSave")
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range helperSaves {
		if _, err := s.Save(context.Background(), entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	saveHook = func() {
		fmt.Println("in-transaction")
		os.Stdout.Sync()
		time.Sleep(time.Minute)
	}
	s.Save(context.Background(), entry(helperSaves))
	t.Fatal("the helper was not killed")
}

func TestCorruptDatabaseIsOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	if err := os.WriteFile(path, []byte("this is not sqlite, just text that is long enough to look like a header......"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil {
		t.Fatal("a text file opened as a history")
	}
	if s := err.Error(); !containsAll(s, path, "not a database") || containsAll(s, "\n") {
		t.Fatalf("error %q: want one line naming the file and the problem", s)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"30d", now.Add(-30 * 24 * time.Hour), true},
		{"12h", now.Add(-12 * time.Hour), true},
		{"2w", now.Add(-14 * 24 * time.Hour), true},
		{"90m", now.Add(-90 * time.Minute), true},
		{"2026-01-31", time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), true},
		{"", time.Time{}, false},
		{"d", time.Time{}, false},
		{"30x", time.Time{}, false},
		{"-3d", time.Time{}, false},
		{"yesterday", time.Time{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSince(tc.in, now)
			if (err == nil) != tc.ok || tc.ok && !got.Equal(tc.want) {
				t.Fatalf("ParseSince(%q) = %v, %v", tc.in, got, err)
			}
		})
	}
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"30d", "12h", "2026-01-31", "", "1y", "99999w", "2026-01-31T10:00:00Z"} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSince(s, now)
		if err != nil {
			if containsAll(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if got.IsZero() {
			t.Fatalf("ParseSince(%q) accepted but gave the zero time", s)
		}
	})
}

// TestFlagKeepsRunOutOfBaseline: a flagged run stays in listings and
// carries why; Unflagged leaves it out, as a baseline query does; label
// and flags come back as saved.
func TestFlagKeepsRunOutOfBaseline(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var ids []int64
	for i := range 3 {
		e := entry(i)
		e.Label, e.Flags = "nas", "-s 0 -n 64"
		id, err := s.Save(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := s.Flag(ctx, ids[1], "put_block fell"); err != nil {
		t.Fatal(err)
	}
	if err := s.Flag(ctx, 999, "x"); err == nil {
		t.Fatal("flagging an unknown id succeeded")
	}
	all, _ := s.Query(ctx, Filter{})
	base, _ := s.Query(ctx, Filter{Unflagged: true})
	if len(all) != 3 || len(base) != 2 || base[0].ID != ids[2] || base[1].ID != ids[0] {
		t.Fatalf("all %v, unflagged %v", all, base)
	}
	if all[1].Flagged != "put_block fell" || all[0].Flagged != "" || all[0].Label != "nas" || all[0].Flags != "-s 0 -n 64" {
		t.Fatalf("entry %+v", all[1])
	}
	e, err := s.Get(ctx, ids[1])
	if err != nil || e.Flagged != "put_block fell" || e.Label != "nas" {
		t.Fatalf("Get: %+v, %v", e, err)
	}
}

// TestOlderHistoryGainsColumns: a history written before label, flags and
// flagged existed reads as it is (read-only, those fields empty) and gains
// the columns, rows kept, when opened for saving.
func TestOlderHistoryGainsColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old := `CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, host TEXT NOT NULL,
		target TEXT NOT NULL, params TEXT NOT NULL, start_time INTEGER NOT NULL, summary TEXT NOT NULL, result BLOB NOT NULL);
		INSERT INTO runs (kind, host, target, params, start_time, summary, result) VALUES ('fs', 'box', '/srv', '{}', 1, 'old run', '{}');`
	if out, err := exec.Command("sqlite3", path, old).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "sqlite3 (the Debian package) is needed to write an old-schema file: %v %s", err, out)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ro.Query(context.Background(), Filter{Unflagged: true})
	ro.Close()
	if err != nil || len(got) != 1 || got[0].Summary != "old run" || got[0].Label != "" {
		t.Fatalf("read-only query of the old file: %v, %v", got, err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Save(context.Background(), Entry{Kind: "fs", Label: "new", JSON: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flag(context.Background(), 1, "fell"); err != nil {
		t.Fatal(err)
	}
	got, err = s.Query(context.Background(), Filter{})
	if err != nil || len(got) != 2 || got[0].Label != "new" || got[1].Flagged != "fell" || got[1].Summary != "old run" {
		t.Fatalf("after the upgrade: %+v, %v", got, err)
	}
}

// A run saved under another mount point of the same filesystem (its Volume)
// matches a target it does not share a path with; another filesystem's
// does not, nor does a clone's (the same UUID on another device) saved on
// the same path; a run saved before devices were recorded ("UUID:path")
// matches by its path alone.
func TestQueryByVolume(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	save := func(target, volume string) int64 {
		e := entry(0)
		e.Target, e.Volume = target, volume
		id, err := s.Save(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	const usb, clone = "1111-uuid@serial:S1:/f", "1111-uuid@serial:S2:/f"
	a := save("/mnt/usb/f", usb)
	b := save("/media/usb/f", usb)
	save("/mnt/usb/f", "2222-uuid@serial:S3:/f")
	save("/srv/f", "")
	c := save("/srv/f", "")
	d := save("/media/usb/f", clone)
	// Written by an older clyde into this file (a read-only open does not
	// migrate it): its volume has no device.
	if _, err := s.db.Exec(`UPDATE runs SET volume = '1111-uuid:/f@home' WHERE id = ?`, c); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    Filter
		want []int64
	}{
		{"path alone", Filter{Target: "/media/usb/f"}, []int64{d, b}},
		{"path or volume", Filter{Target: "/media/usb/f", Volume: usb}, []int64{b, a}},
		{"forms or volume", Filter{Targets: []string{"/media/usb/f", "usb/f"}, Volume: usb}, []int64{b, a}},
		{"the clone", Filter{Target: "/media/usb/f", Volume: clone}, []int64{d}},
		{"no volume read", Filter{Target: "/srv/f"}, []int64{c, c - 1}},
		{"an old volume is no device", Filter{Target: "/srv/f", Volume: "3333-uuid@serial:S4:/f"}, []int64{c, c - 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Query(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, e := range got {
				ids = append(ids, e.ID)
				if e.ID == b && e.Volume != usb {
					t.Errorf("volume read back as %q", e.Volume)
				}
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.want) {
				t.Errorf("ids %v, want %v", ids, tc.want)
			}
		})
	}
}

// TestVolumesBeforeDevicesMigrate: a history whose volumes are a UUID alone
// (clyde before devices were recorded; the sqlite3 CLI writes it as that
// clyde did) reads as it is read-only, where those volumes match nothing,
// and opened for saving loses them once (user_version 1), every row and
// result kept: a clone of the filesystem mounted elsewhere no longer finds
// the old runs, the same path still does.
func TestVolumesBeforeDevicesMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old := `CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, host TEXT NOT NULL,
		target TEXT NOT NULL, params TEXT NOT NULL, start_time INTEGER NOT NULL, summary TEXT NOT NULL, result BLOB NOT NULL,
		label TEXT NOT NULL DEFAULT '', flags TEXT NOT NULL DEFAULT '', flagged TEXT NOT NULL DEFAULT '', volume TEXT NOT NULL DEFAULT '');
		INSERT INTO runs (kind, host, target, params, start_time, summary, result, volume) VALUES
			('fs', 'box', '/mnt/a', 'p', 1, 'on a', '{"a":1}', '1111-uuid:/'),
			('fs', 'box', '/srv', 'p', 2, 'no uuid', '{}', '');`
	if out, err := exec.Command("sqlite3", path, old).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "sqlite3 (the Debian package) is needed to write an old-schema file: %v %s", err, out)
	}
	ctx := context.Background()
	onClone := Filter{Host: "box", Target: "/mnt/b", Volume: "1111-uuid@loop:/b.img:/"}
	onA := Filter{Host: "box", Target: "/mnt/a", Volume: "1111-uuid@loop:/a.img:/"}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	clone, err1 := ro.Query(ctx, onClone)
	same, err2 := ro.Query(ctx, onA)
	ro.Close()
	if err1 != nil || err2 != nil || len(clone) != 0 || len(same) != 1 {
		t.Fatalf("read-only, not migrated: the clone found %d runs (%v), the same path %d (%v); want 0 and 1", len(clone), err1, len(same), err2)
	}
	for range 2 { // the second open finds the migration done
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		all, err := s.Query(ctx, Filter{WithJSON: true})
		if err != nil || len(all) != 2 || all[1].Volume != "" || string(all[1].JSON) != `{"a":1}` || all[1].Summary != "on a" {
			t.Fatalf("after the migration: %+v, %v; want both runs, the old volume cleared and the result whole", all, err)
		}
		var version int
		if err := s.db.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != volumesVersion {
			t.Fatalf("user_version %d, %v; want %d", version, err, volumesVersion)
		}
		if got, _ := s.Query(ctx, onClone); len(got) != 0 {
			t.Fatalf("the clone found %d runs of the original", len(got))
		}
		if got, _ := s.Query(ctx, onA); len(got) != 1 || got[0].Summary != "on a" {
			t.Fatalf("the same path found %v", got)
		}
		s.Close()
	}
}
