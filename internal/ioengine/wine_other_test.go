//go:build !windows

package ioengine

// underWine: only a Windows build runs under Wine.
func underWine() bool { return false }
