package loadtest

import (
	"image"
	"image/color"
)

// glyphs is a 3x5 pixel font for tick labels: each rune is five rows of
// three bits, most significant bit on the left.
var glyphs = map[rune][5]uint8{
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 7, 1, 7},
	'4': {5, 5, 7, 1, 1}, '5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 1, 1},
	'8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7}, '.': {0, 0, 0, 0, 2}, '-': {0, 0, 7, 0, 0},
}

// text draws s at (x, y) in the glyph font, each pixel 2x2, in black.
func text(img *image.RGBA, x, y int, s string) {
	for _, r := range s {
		g, ok := glyphs[r]
		if ok {
			for row, bits := range g {
				for col := range 3 {
					if bits&(4>>col) != 0 {
						for dy := range 2 {
							for dx := range 2 {
								img.Set(x+col*2+dx, y+row*2+dy, color.Black)
							}
						}
					}
				}
			}
		}
		x += 8
	}
}
