package orion

import (
	"context"
	"errors"
	"io"

	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/result"
)

// WriteFiles writes each set's summary, _iops.csv, _mbps.csv, _lat.csv,
// _trace.txt and ORION 12c's _hist.txt under the output-file rules (a regular file replaced
// atomically, a device or FIFO written in place); stdout is where "-" would
// go. It writes what res has, so an interrupted run's files hold the points
// that finished; ctx is the run's stop, which ends a write nobody reads. Every failure is kept; the first of each file is reported.
func (t *Test) WriteFiles(ctx context.Context, stdout io.Writer, res *result.Block) error {
	if res == nil || res.Orion == nil {
		t.Close()
		return nil
	}
	var errs []error
	for si, files := range t.files {
		set := &res.Orion.Sets[si]
		renderers := []func(io.Writer) error{
			func(w io.Writer) error { return blockreport.OrionSummary(w, res, si) },
			func(w io.Writer) error { return blockreport.OrionIOPSCSV(w, set) },
			func(w io.Writer) error { return blockreport.OrionMBPSCSV(w, set) },
			func(w io.Writer) error { return blockreport.OrionLatCSV(w, set) },
			func(w io.Writer) error { return blockreport.OrionTrace(w, res, si) },
			func(w io.Writer) error { return blockreport.OrionHist(w, res, si) },
		}
		for k, f := range files {
			if err := f.Write(ctx, stdout, renderers[k]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	t.files = nil
	return errors.Join(errs...)
}
