//go:build !unix

package main

import (
	"runtime"

	"github.com/clydebench/clyde/result"
)

// switchUser: bonnie++'s -u drops root to another user with setuid, which
// Windows has no equivalent of for a running process (a token of another
// account needs its password).
func switchUser(spec, group string) error {
	if spec == "" && group == "" {
		return nil
	}
	if runtime.GOOS == "windows" {
		return result.Usagef("-u", "switching user is not supported on windows; run clyde from the account to test as (runas /user:NAME \"clyde fs ...\")")
	}
	return result.Usagef("-u", "switching user is not supported on %s", runtime.GOOS)
}
