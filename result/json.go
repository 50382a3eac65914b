package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// EncodeJSON writes v as indented JSON with a trailing newline: the form
// every saved clyde result takes.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Kind reads only the "kind" field of a saved result ("fs" or "block").
func Kind(data []byte) (string, error) {
	var probe struct {
		Kind          string `json:"kind"`
		SchemaVersion int    `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return "", describeJSONError(err)
	}
	if probe.Kind == "" || probe.SchemaVersion == 0 {
		return "", errors.New("not a clyde result: no kind or schema_version")
	}
	return probe.Kind, nil
}

// DecodeFS reads a saved clyde fs result and checks it is one this version
// understands.
func DecodeFS(data []byte) (*FS, error) {
	kind, err := Kind(data)
	if err != nil {
		return nil, err
	}
	if kind != "fs" {
		return nil, fmt.Errorf("a clyde %s result, not an fs result", kind)
	}
	var f FS
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, describeJSONError(err)
	}
	if f.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("result schema %d is newer than this clyde reads (%d)", f.SchemaVersion, SchemaVersion)
	}
	f.Fixup()
	return &f, nil
}

// DecodeBlock reads a saved clyde block result and checks it is one this
// version understands.
func DecodeBlock(data []byte) (*Block, error) {
	kind, err := Kind(data)
	if err != nil {
		return nil, err
	}
	if kind != "block" {
		return nil, fmt.Errorf("a clyde %s result, not a block result", kind)
	}
	var b Block
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, describeJSONError(err)
	}
	if b.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("result schema %d is newer than this clyde reads (%d)", b.SchemaVersion, SchemaVersion)
	}
	for i := range b.Jobs {
		// Results saved before the warmup field marked a warm-up pass
		// only in its name.
		if strings.HasSuffix(b.Jobs[i].JobName, "(warm-up)") {
			b.Jobs[i].Warmup = true
		}
	}
	return &b, nil
}

// describeJSONError turns encoding/json's errors into one line that says
// where the input went wrong.
func describeJSONError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return errors.New("truncated JSON: the input ends before the result does")
	case errors.As(err, &syn) && syn.Error() == "unexpected end of JSON input":
		return errors.New("truncated JSON: the input ends before the result does")
	case errors.As(err, &syn):
		return fmt.Errorf("malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		return fmt.Errorf("JSON field %q holds %s, want %s", typ.Field, typ.Value, typ.Type)
	}
	return fmt.Errorf("JSON: %w", err)
}
