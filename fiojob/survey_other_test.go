//go:build !unix

package fiojob

import "os/exec"

// killTreeOnCancel leaves cmd as it is: the survey runs fio on Linux.
func killTreeOnCancel(*exec.Cmd) {}
