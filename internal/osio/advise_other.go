//go:build !linux

package osio

import "github.com/clydebench/clyde/result"

// AdviseAccess is not available here: clyde reads without access hints.
func AdviseAccess(File, bool) error { return result.ErrNotSupported }

// CanAdviseAccess says whether AdviseAccess works here.
const CanAdviseAccess = false

// DropCache is not available here.
func DropCache(File) error { return result.ErrNotSupported }
