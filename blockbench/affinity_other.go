//go:build !linux

package blockbench

import "github.com/clydebench/clyde/result"

// canPin says the platform pins a thread to CPUs: not here
// (validateAffinity refuses cpus_allowed).
const canPin = false

func configuredCPUs() int { return 0 }

func pinThread([]int) (func(), error) { return nil, result.ErrNotSupported }

func threadCPUs() ([]int, error) { return nil, result.ErrNotSupported }
