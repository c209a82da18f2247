package loadtest

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// A recorded result draws: both panels, at the plot's size.
func TestARecordedResultPlots(t *testing.T) {
	for _, name := range []string{"2026-12-01-10k.json", "2026-11-29-20k-collect.json"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("results", name))
			if err != nil {
				t.Fatal(err)
			}
			var res Result
			if err := json.Unmarshal(b, &res); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "plot.png")
			if err := writePlot(out, &res); err != nil {
				t.Fatalf("writePlot: %v", err)
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatalf("the plot is not a PNG: %v", err)
			}
			if got := img.Bounds().Size(); got.X != 1100 || got.Y != 900 {
				t.Errorf("the plot is %v pixels, want 1100x900", got)
			}
		})
	}
}
