package tz

import "testing"

var (
	sinkZone  Zone
	sinkStr   string
	sinkMoved bool
)

func BenchmarkLoadZoneCached(b *testing.B) {
	MustZone("Europe/Paris")
	b.ReportAllocs()
	for b.Loop() {
		z, err := LoadZone("Europe/Paris")
		if err != nil {
			b.Fatal(err)
		}
		sinkZone = z
	}
}

func BenchmarkLoadZoneLooseFolded(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		z, err := LoadZoneLoose("europe/paris")
		if err != nil {
			b.Fatal(err)
		}
		sinkZone = z
	}
}

func BenchmarkInstant(b *testing.B) {
	cases := []struct {
		name  string
		zone  string
		civil DateTime
	}{
		{"ordinary", "Europe/Paris", dt(2026, 10, 6, 9, 0)},
		{"gap", "Europe/Paris", dt(2026, 3, 29, 2, 30)},
		{"fold", "Europe/Paris", dt(2026, 10, 25, 2, 30)},
		{"utc", "UTC", dt(2026, 10, 6, 9, 0)},
		{"far-future", "America/New_York", dt(2126, 7, 1, 9, 0)},
	}
	for _, c := range cases {
		z := MustZone(c.zone)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, sinkMoved = z.Instant(c.civil)
			}
		})
	}
}

func BenchmarkFormatModel(b *testing.B) {
	z := MustZone("Europe/Paris")
	t, _ := z.Instant(dt(2026, 10, 6, 9, 0))
	b.ReportAllocs()
	for b.Loop() {
		sinkStr = FormatModel(t, z)
	}
}

func BenchmarkSuggestZone(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkStr, _ = SuggestZone("Europe/Pari")
	}
}
