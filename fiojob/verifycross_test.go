package fiojob

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
)

// TestVerifyAcrossTools: the blocks verify= writes are fio 3.33's on disk
// (internal/verify's header, checksums, verify_interval and verify_pattern
// with %o), so each tool's written blocks pass the other's read job with
// verify= (fio checks every read of a job that only reads; verify=meta is
// the header alone, and the pattern after it when one is given): clyde writes
// and fio reads, fio writes and clyde reads, each reading all 64 blocks.
// A byte flipped in clyde's file fails fio's read job: fio does check.
func TestVerifyAcrossTools(t *testing.T) {
	fio := fioBinary(t)
	const region = "filename=v.dat\nsize=256k\nbs=4k\n"
	for _, c := range []struct{ name, opts string }{
		{"md5", "verify=md5\n"},
		{"crc32c", "verify=crc32c\n"},
		{"crc32c-intel", "verify=crc32c-intel\n"},
		{"md5 with verify_interval=512", "verify=md5\nverify_interval=512\n"},
		{"crc32c with verify_pattern and %o", "verify=crc32c\nverify_pattern=0x5aa5%o\n"},
		{"pattern with %o", "verify=pattern\nverify_pattern=\"clyde\"%o\n"},
		{"meta", "verify=meta\n"},
		{"meta with verify_pattern and verify_interval=512", "verify=meta\nverify_pattern=0xaa555aa5\nverify_interval=512\n"},
	} {
		write := "[w]\n" + region + "rw=randwrite\ndo_verify=0\n" + c.opts
		read := "[r]\n" + region + "rw=randread\n" + c.opts
		t.Run(c.name+"/clyde writes, fio reads", func(t *testing.T) {
			dir := clydeWrites(t, write)
			v, err := runFio(fio, dir, read, false)
			if err != nil {
				t.Fatalf("fio's read job with verify: %v", err)
			}
			if n := v.jobs[0].Read.TotalIOs; n != 64 {
				t.Errorf("fio read %d blocks, want 64", n)
			}
		})
		t.Run(c.name+"/fio writes, clyde reads", func(t *testing.T) {
			dir := t.TempDir()
			if _, err := runFio(fio, dir, write, false); err != nil {
				t.Fatal(err)
			}
			v, _ := clydeInDir(t, dir, read, nil)
			if n := v.jobs[0].Read.TotalIOs; n != 64 {
				t.Errorf("clyde read %d blocks, want 64", n)
			}
		})
	}
	t.Run("fio fails a damaged block", func(t *testing.T) {
		dir := clydeWrites(t, "[w]\n"+region+"rw=write\ndo_verify=0\nverify=md5\n")
		damage(t, filepath.Join(dir, "v.dat"), 9*4096+2000)
		if err := os.WriteFile(filepath.Join(dir, "job.fio"), []byte("[r]\n"+region+"rw=read\nverify=md5\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(fio, "--output-format=json", "--output=out.json", "job.fio")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "md5: verify failed at file") {
			t.Errorf("fio on a damaged block: %v\n%s", err, out)
		}
	})
	t.Run("clyde fails a damaged block", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := runFio(fio, dir, "[w]\n"+region+"rw=write\ndo_verify=0\nverify=md5\n", false); err != nil {
			t.Fatal(err)
		}
		damage(t, filepath.Join(dir, "v.dat"), 9*4096+2000)
		f, err := Parse("job.fio", []byte("[r]\nfilename="+filepath.Join(dir, "v.dat")+"\nsize=256k\nbs=4k\nrw=read\nverify=md5\n"), Env{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = blockbench.RunPlan(context.Background(), p)
		if err == nil || !strings.Contains(err.Error(), "md5: verify failed at offset 36864, length 4096") {
			t.Errorf("clyde on a damaged block: %v", err)
		}
	})
}

// clydeWrites runs the write job in a directory of its own and returns
// it, v.dat left there: written over a file of its size made first (with
// DestroyData), which clyde leaves in place; one it created it removes.
func clydeWrites(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "v.dat"), make([]byte, 256<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	clydeInDir(t, dir, text, func(p *blockbench.Plan) { p.DestroyData = true })
	return dir
}

// damage flips a bit of the byte at off of path.
func damage(t *testing.T, path string, off int64) {
	t.Helper()
	h, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	b := make([]byte, 1)
	if _, err := h.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1
	if _, err := h.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}
