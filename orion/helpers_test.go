package orion

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/clydebench/clyde/result"
)

func isUsageFor(err error, flag string) bool {
	var ue *result.UsageError
	return errors.As(err, &ue) && ue.Flag == flag
}

// runTest prepares and runs o as clyde orion does, and writes ORION's
// files when writeFiles is set; any error fails the test.
func runTest(t *testing.T, o Options, writeFiles bool) *result.Block {
	t.Helper()
	tt, err := Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tt.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if writeFiles {
		if err := tt.WriteFiles(context.Background(), os.Stdout, res); err != nil {
			t.Fatal(err)
		}
	}
	return res
}
