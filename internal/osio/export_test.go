//go:build unix

package osio

import "unsafe"

func uintptrOfSlice(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
