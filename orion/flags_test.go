package orion

import (
	"errors"
	"testing"

	"github.com/clydebench/clyde/result"
)

// TestRefusalNamesORIONsOption: a refusal from the block engine names the
// ORION option behind it ("--bs/--size" were named, which clyde orion lacks).
func TestRefusalNamesORIONsOption(t *testing.T) {
	for flag, want := range map[string]string{"--bs": "-size_small/-size_large", "--iodepth": "-num_small/-num_large", "--destroy-data": "--destroy-data"} {
		err := orionFlags(&result.UsageError{Flag: flag, Msg: "x"})
		var ue *result.UsageError
		if !errors.As(err, &ue) || ue.Flag != want {
			t.Errorf("%s: %v, want %s", flag, err, want)
		}
	}
	if err := orionFlags(nil); err != nil {
		t.Errorf("nil: %v", err)
	}
}
