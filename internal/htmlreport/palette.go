package htmlreport

import (
	"image/color"

	"gonum.org/v1/plot/vg"
)

// palette is Okabe and Ito's eight colours, which readers with any common
// colour-vision deficiency tell apart, ordered so the first runs get the
// most distinct ones (yellow, weak on white, comes late). Run i keeps its
// colour in every chart and table of the page. Beyond eight runs the
// colours repeat: bars carry their run's letter and label, and lines a
// dash pattern of their own.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

// runColor is run i's colour.
func runColor(i int) color.RGBA { return palette[i%len(palette)] }

// runHex is run i's colour as CSS and SVG take it.
func runHex(i int) string {
	c := runColor(i)
	const hex = "0123456789abcdef"
	b := []byte{'#', hex[c.R>>4], hex[c.R&15], hex[c.G>>4], hex[c.G&15], hex[c.B>>4], hex[c.B&15]}
	return string(b)
}

// dashes is the dash pattern of line i: solid for the first eight, then
// dashed, then dotted, so a ninth run is not drawn like the first.
func dashes(i int) []vg.Length {
	switch (i / len(palette)) % 3 {
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(1.5), vg.Points(2)}
	}
	return nil
}

// dashCSS is dashes(i) for an HTML legend's sample line.
func dashCSS(i int) string {
	switch (i / len(palette)) % 3 {
	case 1:
		return "dashed"
	case 2:
		return "dotted"
	}
	return "solid"
}
