//go:build !unix

package main

import (
	"runtime"

	"github.com/clydebench/clyde/result"
)

func switchUser(spec, group string) error {
	if spec == "" && group == "" {
		return nil
	}
	return result.Usagef("-u", "switching user is not supported on %s", runtime.GOOS)
}
