package osio

import "io"

// WriteFull writes all of b to f, continuing after short writes; a write that
// moves nothing is io.ErrShortWrite.
func WriteFull(f File, b []byte) error {
	for len(b) > 0 {
		n, err := f.Write(b)
		if err != nil {
			return err
		}
		if n <= 0 {
			return io.ErrShortWrite
		}
		b = b[n:]
	}
	return nil
}

// PwriteFull writes all of b to f at off, continuing after short writes.
func PwriteFull(f File, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := f.Pwrite(b, off)
		if err != nil {
			return err
		}
		if n <= 0 {
			return io.ErrShortWrite
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}
