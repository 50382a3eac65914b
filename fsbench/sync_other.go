//go:build !unix && !windows

package fsbench

import "github.com/clydebench/clyde/result"

func syncAll() error { return result.ErrNotSupported }
