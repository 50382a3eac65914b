package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/clydebench/clyde/internal/latency"
)

// FioCompatible is the fio release whose JSON shape clyde block writes: every
// key of its JSON is in clyde's, with the same meaning and units.
const FioCompatible = "fio-3.33"

// FioVersionSlot is what clyde writes in fio's "fio version" slot: clyde and
// the fio release it is compatible with, so tools that print the slot show
// which program ran.
func FioVersionSlot(clydeVersion string) string {
	return "clyde-" + clydeVersion + " (" + FioCompatible + " compatible)"
}

// FioTime is a time as fio's "time" prints it (C's ctime, without the
// newline): "Sun Nov 29 18:23:46 2026".
const FioTime = "Mon Jan _2 15:04:05 2006"

// BlockJobFio is the part of a job that only fio's tools read: context
// switches and page faults, the queue-depth and latency distributions, and
// fio's latency_target fields (clyde has no latency target: depth, 0,
// 100%, 0).
type BlockJobFio struct {
	// Ctx, Majf and Minf are context switches (voluntary and involuntary)
	// and major and minor page faults over the job's runtime, whose as
	// BlockJob.CPUScope says, as UsrCPU.
	Ctx  int64 `json:"ctx"`
	Majf int64 `json:"majf"`
	Minf int64 `json:"minf"`
	// IODepthLevel is the share of I/Os submitted with 1, 2, 4, ... I/Os in
	// flight (counting itself); IODepthSubmit and IODepthComplete the share
	// of submit and reap calls that moved 0, 1-4, 5-8, ... I/Os.
	IODepthLevel    Dist `json:"iodepth_level"`
	IODepthSubmit   Dist `json:"iodepth_submit"`
	IODepthComplete Dist `json:"iodepth_complete"`
	// LatencyNs, LatencyUs and LatencyMs are fio's fixed buckets of
	// completion latency (clat), in percent of all I/Os, from the clat
	// histograms: "250" under latency_us holds 100..249 us.
	LatencyNs         Dist    `json:"latency_ns"`
	LatencyUs         Dist    `json:"latency_us"`
	LatencyMs         Dist    `json:"latency_ms"`
	LatencyDepth      int     `json:"latency_depth"`
	LatencyTarget     int64   `json:"latency_target"`
	LatencyPercentile float64 `json:"latency_percentile"`
	LatencyWindow     int64   `json:"latency_window"`
}

// BlockSyncDir is fio's "sync" direction: the fsync calls of --fsync and
// end_fsync and how long they took.
type BlockSyncDir struct {
	TotalIOs int64 `json:"total_ios"`
	Lat      LatNs `json:"lat_ns"`
}

// BlockDiskUtil is fio's disk_util entry for one disk: /sys/block/NAME/stat
// after the run minus before it; Util is the share of the run's wall time
// the disk was busy, in percent.
type BlockDiskUtil struct {
	Name        string  `json:"name"`
	ReadIOs     int64   `json:"read_ios"`
	WriteIOs    int64   `json:"write_ios"`
	ReadMerges  int64   `json:"read_merges"`
	WriteMerges int64   `json:"write_merges"`
	ReadTicks   int64   `json:"read_ticks"`
	WriteTicks  int64   `json:"write_ticks"`
	InQueue     int64   `json:"in_queue"`
	Util        float64 `json:"util"`
}

// Options is fio's "job options" and "global options" object: each option
// line as fio echoes it (stat.c's json_add_job_opts: fio's name for the
// option, its value as written), in the order fio writes them; an option
// given twice is there twice, as in fio's JSON. A caller that wants the
// value an option took reads Get, the last one.
type Options []Option

// Option is one member of an Options object.
type Option struct{ Name, Value string }

// Get is the last value given for name, "" when there is none.
func (o Options) Get(name string) string {
	v, _ := o.Lookup(name)
	return v
}

// Lookup is the last value given for name and whether there is one.
func (o Options) Lookup(name string) (string, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Name == name {
			return o[i].Value, true
		}
	}
	return "", false
}

// MarshalJSON writes o as one object in its own order, duplicates kept, as
// fio writes it; {} when o is empty.
func (o Options) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, opt := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeKey(&b, opt.Name); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := writeKey(&b, opt.Value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an options object back in the order it was written.
func (o *Options) UnmarshalJSON(data []byte) error {
	out, err := orderedObject(data, func(v json.RawMessage) (string, error) {
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	})
	if err != nil {
		return err
	}
	*o = (*o)[:0]
	for _, kv := range out {
		*o = append(*o, Option{Name: kv.key, Value: kv.value})
	}
	return nil
}

// DistBucket is one bucket of a fio distribution: its label as fio writes it
// ("4", ">=64") and its share in percent.
type DistBucket struct {
	Key   string
	Value float64
}

// Dist is an ordered fio distribution object ({"1": 0.1, "2": 0.1, "4":
// 99.8, ...}); it keeps fio's key order, which encoding/json's maps would
// sort as text.
type Dist []DistBucket

// MarshalJSON writes d as one object in its own order.
func (d Dist) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeKey(&b, e.Key); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(finite(e.Value), 'f', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a distribution back in the order it was written.
func (d *Dist) UnmarshalJSON(data []byte) error {
	out, err := orderedObject(data, func(v json.RawMessage) (float64, error) {
		var f float64
		err := json.Unmarshal(v, &f)
		return f, err
	})
	if err != nil {
		return err
	}
	*d = (*d)[:0]
	for _, kv := range out {
		*d = append(*d, DistBucket{Key: kv.key, Value: kv.value})
	}
	return nil
}

// At is the share of bucket key, and whether d has it.
func (d Dist) At(key string) (float64, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Value, true
		}
	}
	return 0, false
}

// writeKey writes a JSON string without HTML escaping, so fio's ">=64"
// stays as fio writes it (with an encoder that does not escape either).
func writeKey(b *bytes.Buffer, k string) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(k); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

type keyValue[T any] struct {
	key   string
	value T
}

// orderedObject decodes a JSON object's members in the order they appear.
func orderedObject[T any](data []byte, value func(json.RawMessage) (T, error)) ([]keyValue[T], error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil // null
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("want an object")
	}
	var out []keyValue[T]
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		v, err := value(raw)
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		out = append(out, keyValue[T]{key, v})
	}
	return out, nil
}

// FioBin is one non-empty bucket of fio's clat histogram: the bucket's
// midpoint in ns, as fio's json+ keys are, and how many I/Os fell in it.
type FioBin struct {
	ValueNs int64
	Count   int64
}

// FioBins is json+'s "bins" object ({"1128": 5310, ...}), in ascending order.
type FioBins []FioBin

// MarshalJSON writes the bins as fio's json+ does.
func (bs FioBins) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, bin := range bs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\"%d\":%d", bin.ValueNs, bin.Count)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads fio's bins object back, sorted by value.
func (bs *FioBins) UnmarshalJSON(data []byte) error {
	var m map[string]int64
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	out := make(FioBins, 0, len(m))
	for k, v := range m {
		ns, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return fmt.Errorf("bin key %q: %w", k, err)
		}
		out = append(out, FioBin{ValueNs: ns, Count: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ValueNs < out[j].ValueNs })
	*bs = out
	return nil
}

// WithBins returns l with json+'s bins filled from its histogram (HDR):
// fio's log-linear buckets (see latency.FioPlatIndex), each keyed by its
// midpoint. l is returned as it is when it has no histogram.
func (l LatNs) WithBins() (LatNs, error) {
	if l.N == 0 || l.HDR == "" {
		return l, nil
	}
	r, err := l.Recorder()
	if err != nil {
		return l, err
	}
	counts := r.FioBins()
	l.Bins = make(FioBins, 0, len(counts))
	for _, c := range counts {
		l.Bins = append(l.Bins, FioBin{ValueNs: latency.FioPlatValue(c.Index), Count: c.Count})
	}
	return l, nil
}

// LatPercentiles are the total-latency (lat) percentiles of d: lat_ns's
// own when it has them (lat_percentiles, or a result written before clyde
// moved them to clat_ns as fio does), else computed from lat_ns's
// histogram at the points clat_ns has (fio's default list when it has
// none). nil when d has neither (fio's own JSON without lat_percentiles).
func (d *BlockDir) LatPercentiles() Percentiles {
	if len(d.Lat.Percentile) > 0 {
		return d.Lat.Percentile
	}
	if d.Lat.N == 0 || d.Lat.HDR == "" {
		return nil
	}
	r, err := d.Lat.Recorder()
	if err != nil {
		return nil
	}
	ps := latency.FioPercentiles
	if len(d.Clat.Percentile) > 0 {
		ps = make([]float64, len(d.Clat.Percentile))
		for i, p := range d.Clat.Percentile {
			ps[i] = p.P
		}
	}
	return LatNsFrom(r, ps).Percentile
}

// LatPercentile is the total latency at percentile p (see LatPercentiles),
// and whether d has it.
func (d *BlockDir) LatPercentile(p float64) (int64, bool) {
	if v, ok := d.Lat.Percentile.At(p); ok {
		return v, true
	}
	if d.Lat.N == 0 || d.Lat.HDR == "" {
		return 0, false
	}
	r, err := d.Lat.Recorder()
	if err != nil {
		return 0, false
	}
	return r.FioPercentilesNs([]float64{p}, nil)[0], true
}
