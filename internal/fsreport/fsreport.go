// Package fsreport renders a clyde fs result as bonnie++ prints its own:
// the two text tables of each run, the advice for tests too short to
// measure, the latency percentiles when asked, and the 1.98 CSV line. A run
// and `clyde report` of its saved JSON print through the same function, so
// they print the same bytes.
package fsreport

import (
	"fmt"
	"io"

	"github.com/clydebench/clyde/fsbench"
	"github.com/clydebench/clyde/internal/bonnie"
	"github.com/clydebench/clyde/result"
)

// Options shape the report.
type Options struct {
	// CSVOnly prints only CSV lines, a header first when there is more than
	// one run (bonnie++ -x).
	CSVOnly bool
	// Percentiles prints each test's latency distribution after the tables.
	Percentiles bool
}

// Write prints res like bonnie++: for each run the text tables and advice
// (to text) then the CSV line (to csv); bonnie++ -q sends text to stderr,
// so the two may differ.
func Write(text, csv io.Writer, res *result.FS, o Options) error {
	if o.CSVOnly && len(res.Runs) > 1 {
		if _, err := fmt.Fprintln(csv, bonnie.CSVHeader()); err != nil {
			return err
		}
	}
	noted, cacheNoted := false, false
	for _, run := range res.Runs {
		if !o.CSVOnly {
			if err := bonnie.WriteText(text, res.Config, run); err != nil {
				return err
			}
			next, limits := fsbench.Suggest(res.Config, run, res.Room)
			if advice := bonnie.TooShortAdvice(res.Config, run, next, limits); advice != "" {
				if _, err := fmt.Fprintln(text, advice); err != nil {
					return err
				}
			}
			if err := writeStonewalls(text, run); err != nil {
				return err
			}
			if res.CacheNote != "" && !cacheNoted {
				cacheNoted = true
				if _, err := fmt.Fprintf(text, "Note: %s.\n", res.CacheNote); err != nil {
					return err
				}
			}
			if fs := res.Provenance.Filesystem; fs.NoJournal && !noted && ranFileTests(run) {
				noted = true
				if _, err := fmt.Fprintf(text, noJournalNote, fs.MountPoint); err != nil {
					return err
				}
			}
		}
		if o.Percentiles {
			if err := bonnie.WritePercentiles(text, run); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintln(csv, bonnie.CSVLine(res.Config, run)); err != nil {
			return err
		}
	}
	return nil
}

// noJournalNote follows the tables of a run with file tests on an ext4
// without a journal, once: its creation rates are not the drive's alone.
const noJournalNote = "Note: the ext4 mounted at %s has no journal, so a new file skips inodes freed in the last minute\n" +
	"(six while they are not written back): file creation soon after many deletions, such as the random\n" +
	"create after the sequential delete or a run after another, is slower than the drive.\n"

// ranFileTests is whether any file creation test ran in run.
func ranFileTests(run result.FSRun) bool {
	for t, tr := range run.Tests {
		if !result.FSTest(t).IsIO() && tr.Ran {
			return true
		}
	}
	return false
}

// writeStonewalls says, below the tables, where --stonewall stopped each
// create phase: mdtest's stonewall rate, and the count every worker then
// caught up to (the files the later phases saw).
func writeStonewalls(w io.Writer, run result.FSRun) error {
	for _, t := range []result.FSTest{result.SeqCreate, result.RandCreate} {
		sw := run.Tests[t].Stonewall
		if sw == nil {
			continue
		}
		if _, err := fmt.Fprintf(w, "Stonewall %gs: %s stopped (%s) at %d files in %.3f s, %.0f/s; each worker then made %d (fewest at the wall %d)\n",
			sw.Seconds, t.Name(), sw.Wall, sw.Items, float64(sw.ElapsedNs)/1e9, sw.RatePerSec, sw.MaxItems, sw.MinItems); err != nil {
			return err
		}
	}
	return nil
}
