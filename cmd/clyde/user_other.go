//go:build !unix

package main

import (
	"runtime"

	"github.com/clydebench/clyde/internal/usage"
)

func switchUser(spec, group string) error {
	if spec == "" && group == "" {
		return nil
	}
	return usage.Errorf("-u", "switching user is not supported on %s", runtime.GOOS)
}
