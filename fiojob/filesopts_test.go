package fiojob

import (
	"fmt"
	"testing"
)

// TestFileSizeDrawsAsFio checks filesize ranges against the sizes fio 3.33
// laid out for the same job file (create_only=1, bs=4k, default seeds):
// [a] nrfiles=5 filesize=8k-64k, [c] nrfiles=2 filesize=16k,4m, [d]
// nrfiles=3 filesize=1m-4m, jobs 1, 2 and 3.
func TestFileSizeDrawsAsFio(t *testing.T) {
	for _, tc := range []struct {
		value  string
		thread int
		want   []int64
	}{
		{"8k-64k", 1, []int64{16384, 24576, 24576, 57344, 49152}},
		{"16k,4m", 2, []int64{1196032, 3637248}},
		{"1m-4m", 3, []int64{2985984, 2854912, 3977216}},
	} {
		t.Run(tc.value, func(t *testing.T) {
			j := newJob(Section{Name: "x"}, Options{})
			if err := j.apply(Option{Name: "filesize", Value: tc.value, HasValue: true}); err != nil {
				t.Fatal(err)
			}
			got := j.fileSizeDraws(len(tc.want), tc.thread, 4096)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("draws %v, fio laid out %v", got, tc.want)
			}
		})
	}
}
