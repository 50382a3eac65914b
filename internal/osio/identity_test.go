package osio

import "testing"

func TestIdentitySame(t *testing.T) {
	a := Identity{Dev: 1, Ino: 2, Birth: 3}
	cases := []struct {
		name            string
		b               Identity
		same, sameInode bool
	}{
		{"identical", a, true, true},
		{"birth unknown on one side", Identity{Dev: 1, Ino: 2}, true, true},
		{"inode reused by a later file", Identity{Dev: 1, Ino: 2, Birth: 4}, false, false},
		{"other inode", Identity{Dev: 1, Ino: 5, Birth: 3}, false, false},
		{"other device (another NFS client)", Identity{Dev: 9, Ino: 2, Birth: 3}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := a.Same(tc.b); got != tc.same {
				t.Errorf("Same = %v", got)
			}
			if got := a.SameInode(tc.b); got != tc.sameInode {
				t.Errorf("SameInode = %v", got)
			}
		})
	}
}
