package postgres

import "testing"

func TestServerMajorReadsTheVersionsServersReport(t *testing.T) {
	for v, want := range map[string]int{
		"15.18": 15, "16.4 (Debian 16.4-1.pgdg120+1)": 16, "9.6.24": 9, "18beta1": 18, "": 0, "devel": 0,
	} {
		if got := serverMajor(v); got != want {
			t.Errorf("serverMajor(%q) = %d, want %d", v, got, want)
		}
	}
}
