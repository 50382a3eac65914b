//go:build !unix && !windows

package fsbench

import "github.com/clydebench/clyde/internal/platform"

func syncAll() error { return platform.ErrNotSupported }
