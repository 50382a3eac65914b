package ioengine

import "golang.org/x/sys/windows"

// underWine says whether the test runs under Wine (its ntdll exports
// wine_get_version), which differs from Windows where a test says so.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
