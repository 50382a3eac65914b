package result

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/latency"
)

func TestFioObjectsRoundTrip(t *testing.T) {
	d := Dist{{">=64", 0}, {"1", 99.9}, {"2", 0.1}}
	b, err := d.MarshalJSON()
	if err != nil || string(b) != `{">=64":0,"1":99.9,"2":0.1}` {
		t.Fatalf("Dist encodes as %s, %v: want fio's order kept", b, err)
	}
	var back Dist
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 3 || back[0].Key != ">=64" || back[1].Value != 99.9 {
		t.Fatalf("decoded %v, %v", back, err)
	}
	if b, _ := json.Marshal(struct{ O Options }{}); string(b) != `{"O":{}}` {
		t.Errorf("nil Options encode as %s; fio readers merge the object, so never null", b)
	}
	// fio echoes every option line: its order, a second bs=, a quote.
	o := Options{{"kb_base", "1000"}, {"bs", "1M"}, {"bs", " 4k"}, {"description", `a "q"`}}
	b, err = json.Marshal(o)
	if want := `{"kb_base":"1000","bs":"1M","bs":" 4k","description":"a \"q\""}`; err != nil || string(b) != want {
		t.Fatalf("Options encode as %s, %v; want %s", b, err, want)
	}
	var obak Options
	if err := json.Unmarshal(b, &obak); err != nil || len(obak) != 4 || obak[2] != o[2] || obak.Get("bs") != " 4k" {
		t.Fatalf("decoded %v, %v", obak, err)
	}
	if v, ok := obak.Lookup("rw"); ok || v != "" {
		t.Errorf("Lookup of an option not given: %q, %v", v, ok)
	}
	var bins FioBins
	if err := json.Unmarshal([]byte(`{"1128": 5, "764": 2}`), &bins); err != nil || bins[0].ValueNs != 764 || bins[1].Count != 5 {
		t.Errorf("bins %v, %v", bins, err)
	}
	if b, _ := json.Marshal(bins); string(b) != `{"764":2,"1128":5}` {
		t.Errorf("bins encode as %s", b)
	}
}

func TestLatPercentiles(t *testing.T) {
	r := latency.New()
	for i := range 1000 {
		r.Record(time.Duration(1000 + i))
	}
	// A result written before percentiles moved to clat_ns.
	old := BlockDir{Lat: LatNs{N: 1000, Percentile: Percentiles{{P: 99, Value: 1990}}}}
	if v, ok := old.LatPercentile(99); !ok || v != 1990 {
		t.Errorf("old result: p99 %d, %v", v, ok)
	}
	// Today's: no lat_ns.percentile, the histogram, clat's points.
	cur := BlockDir{Lat: LatNsFrom(r, nil), Clat: LatNsFrom(r, []float64{50, 99})}
	if len(cur.Lat.Percentile) != 0 {
		t.Fatal("LatNsFrom with no points gave percentiles")
	}
	ps := cur.LatPercentiles()
	if len(ps) != 2 || ps[1].P != 99 {
		t.Fatalf("LatPercentiles %v, want clat's points", ps)
	}
	if v, ok := cur.LatPercentile(99); !ok || v < 1989 || v > 1991 || v != ps[1].Value {
		t.Errorf("p99 %d (%v), LatPercentiles says %d; want about 1990", v, ok, ps[1].Value)
	}
	// fio's own JSON has neither: nothing rather than clat's figure.
	if _, ok := (&BlockDir{Lat: LatNs{N: 5}}).LatPercentile(99); ok {
		t.Error("a lat_ns without percentiles or histogram gave a percentile")
	}
	if s := FioVersionSlot("1.2"); !strings.HasPrefix(s, "clyde-1.2") || !strings.Contains(s, FioCompatible) {
		t.Errorf("fio version slot %q", s)
	}
}
