package fileset

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/offsets"
)

func TestNamesProblem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string
		want  string
	}{
		{"fine", []string{"a", "b"}, ""},
		{"none", nil, "at least one file"},
		{"empty", []string{"a", ""}, "has no name"},
		{"twice", []string{"a", "b", "a"}, "a is listed twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Set{Names: tc.names}.NamesProblem()
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}

func TestProblem(t *testing.T) {
	zipf := offsets.Distribution{Kind: offsets.Zipf, Param: 1.2}
	for _, tc := range []struct {
		name      string
		set       Set
		flag, msg string
	}{
		{"fine", Set{Size: Size{Low: 4096, High: 8192}, Service: Service{Kind: Random, Run: 2, Dist: zipf}}, "", ""},
		{"open negative", Set{Open: -1}, "--openfiles", "negative"},
		{"range backwards", Set{Size: Size{Low: 8192, High: 4096}}, "--filesize", "not a size or a range"},
		{"high without low", Set{Size: Size{High: 4096}}, "--filesize", "not a size or a range"},
		{"run negative", Set{Service: Service{Run: -1}}, "--file_service_type", "negative"},
		{"unknown", Set{Service: Service{Kind: "rand"}}, "--file_service_type", "unknown service"},
		{"distribution on round robin", Set{Service: Service{Kind: RoundRobin, Dist: zipf}}, "--file_service_type", "zipf, pareto or normal"},
		{"zoned", Set{Service: Service{Kind: Random, Dist: offsets.Distribution{Kind: offsets.Zoned}}}, "--file_service_type", "zipf, pareto or normal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flag, msg := tc.set.Problem()
			if flag != tc.flag || !strings.Contains(msg, tc.msg) || tc.msg == "" && msg != "" {
				t.Errorf("%s %q, want %s %q", flag, msg, tc.flag, tc.msg)
			}
		})
	}
}
