package cli

import "testing"

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1023: "1023", 1024: "1Ki", 12_600: "12.3Ki",
		256 << 20: "256Mi", 5_400_000: "5.1Mi", 3 << 29: "1.5Gi", 1 << 60: "1Ei"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
