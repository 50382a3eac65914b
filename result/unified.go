package result

import (
	"bytes"
	"encoding/json"
)

// The JSON of a job with fio's unified_rw_reporting=mixed (BlockJob.Mixed,
// MixedOnly): the directions' objects give way to "mixed".

// MarshalJSON writes the job as its fields say, except that a MixedOnly
// job leaves out read, write, trim and sync, as fio 3.33's
// show_thread_status_json does (add_ddir_status_json writes only the
// "mixed" one). "<", ">" and "&" are left for the caller's encoder to
// escape or not (fio's ">=64" keys).
func (j BlockJob) MarshalJSON() ([]byte, error) {
	type plain BlockJob
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain(j)); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if !j.MixedOnly || j.Mixed == nil {
		return out, nil
	}
	members, err := orderedObject(out, func(v json.RawMessage) (json.RawMessage, error) { return v, nil })
	if err != nil {
		return nil, err
	}
	var o bytes.Buffer
	o.WriteByte('{')
	first := true
	for _, m := range members {
		switch m.key {
		case "read", "write", "trim", "sync":
			continue
		}
		if !first {
			o.WriteByte(',')
		}
		first = false
		if err := writeKey(&o, m.key); err != nil {
			return nil, err
		}
		o.WriteByte(':')
		o.Write(m.value)
	}
	o.WriteByte('}')
	return o.Bytes(), nil
}

// UnmarshalJSON reads a job back: one with "mixed" and no "read" is a
// MixedOnly one.
func (j *BlockJob) UnmarshalJSON(data []byte) error {
	type plain BlockJob
	if err := json.Unmarshal(data, (*plain)(j)); err != nil {
		return err
	}
	if j.Mixed != nil {
		var probe struct {
			Read json.RawMessage `json:"read"`
		}
		if err := json.Unmarshal(data, &probe); err != nil {
			return err
		}
		j.MixedOnly = probe.Read == nil
	}
	return nil
}
