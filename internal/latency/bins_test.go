package latency

import (
	"slices"
	"testing"
	"time"
)

func TestBins(t *testing.T) {
	edges := []int64{0, 50e3, 100e3, 1e6}
	cases := []struct {
		name string
		ns   []int64
		want []int64
	}{
		{"empty", nil, []int64{0, 0, 0, 0}},
		{"one per bin", []int64{10e3, 60e3, 500e3, 2e6}, []int64{1, 1, 1, 1}},
		{"just above an edge", []int64{50.2e3, 100.3e3, 1.002e6}, []int64{0, 1, 1, 1}},
		{"just below an edge", []int64{49e3, 99e3, 990e3}, []int64{1, 1, 1, 0}},
		{"beyond the last edge", []int64{int64(time.Minute), int64(2 * time.Hour)}, []int64{0, 0, 0, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			for _, ns := range tc.ns {
				r.Record(time.Duration(ns))
			}
			if got := r.Bins(edges); !slices.Equal(got, tc.want) {
				t.Errorf("bins %v, want %v", got, tc.want)
			}
		})
	}
}
