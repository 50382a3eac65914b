package blockreport

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clydebench/clyde/result"
)

// ParseFormats reads --output-format: one format or fio's comma list
// ("normal,json"), each written in turn. An unknown or repeated format and
// an empty item are refused, as a usage error naming the flag.
func ParseFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "terse":
			return nil, result.Usagef("--output-format", "terse is fio's semicolon format, which clyde does not write; accepted: %s",
				strings.Join(Formats, ", "))
		case !slices.Contains(Formats, f):
			return nil, result.Usagef("--output-format", "unknown format %q; accepted: %s, or a comma list such as normal,json",
				f, strings.Join(Formats, ", "))
		case slices.Contains(out, f) || (f == "normal" && slices.Contains(out, "text")) || (f == "text" && slices.Contains(out, "normal")):
			return nil, result.Usagef("--output-format", "%q is listed twice", f)
		}
		out = append(out, f)
	}
	return out, nil
}

// WriteAll renders res in every format of formats, one after another, as
// fio does for --output-format=normal,json.
func WriteAll(w io.Writer, formats []string, res *result.Block) error {
	for _, f := range formats {
		if err := Write(w, f, res); err != nil {
			return err
		}
	}
	return nil
}

// JSONPlus is fio's json+: the JSON with every latency object that has
// percentiles also carrying fio's histogram "bins" (bucket midpoint in ns
// to count, fio's log-linear buckets, from clyde's HDR histograms), which
// fio_jsonplus_clat2csv and fio-plot read.
func JSONPlus(w io.Writer, res *result.Block) error {
	plus := *res
	plus.Jobs = slices.Clone(res.Jobs)
	for i := range plus.Jobs {
		j := &plus.Jobs[i]
		dirs := []*result.BlockDir{&j.Read, &j.Write, &j.Trim}
		if j.Mixed != nil {
			mixed := *j.Mixed // the caller's stays without bins
			j.Mixed = &mixed
			dirs = append(dirs, j.Mixed)
		}
		for _, d := range dirs {
			for _, l := range []*result.LatNs{&d.Slat, &d.Clat, &d.Lat} {
				if err := withBins(l); err != nil {
					return fmt.Errorf("json+ of job %s: %w", j.JobName, err)
				}
			}
		}
		if err := withBins(&j.Sync.Lat); err != nil {
			return fmt.Errorf("json+ of job %s: %w", j.JobName, err)
		}
	}
	return JSON(w, &plus)
}

// withBins adds bins where fio's json+ has them: to an object with
// percentiles.
func withBins(l *result.LatNs) error {
	if len(l.Percentile) == 0 {
		return nil
	}
	b, err := l.WithBins()
	if err != nil {
		return err
	}
	*l = b
	return nil
}
