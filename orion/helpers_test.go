package orion

import (
	"errors"

	"github.com/clydebench/clyde/result"
)

func isUsageFor(err error, flag string) bool {
	var ue *result.UsageError
	return errors.As(err, &ue) && ue.Flag == flag
}
