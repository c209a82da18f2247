package demo

import (
	"maps"
	"testing"

	"kollect.dev/kollect/pkg/testenv"
)

func TestChartMemoryLimitsAreTheChartsDefaultContainerLimits(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ChartMemoryLimits(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"control": "256Mi", "collector": "1Gi", "aggregator": "1Gi",
		"snapshotexporter": "1Gi", "databaseexporter": "1Gi", "eventexporter": "512Mi"}
	if !maps.Equal(got, want) {
		t.Errorf("chart memory limits %v, want %v", got, want)
	}
}

func TestParseMemoryLimits(t *testing.T) {
	defaults := map[string]string{"control": "256Mi", "collector": "1Gi", "aggregator": "1Gi",
		"snapshotexporter": "1Gi", "databaseexporter": "1Gi", "eventexporter": "512Mi"}
	all := func(q string) map[string]string {
		out := map[string]string{}
		for _, s := range Services {
			out[s] = q
		}
		return out
	}
	for _, tc := range []struct {
		name, in string
		want     map[string]string
		ok       bool
	}{
		{"empty keeps the defaults", "", defaults, true},
		{"off gives no service a limit", "off", map[string]string{}, true},
		{"a quantity sets every service's", "256Mi", all("256Mi"), true},
		{"service=quantity pairs set those and keep the others' defaults", "collector=300Mi,aggregator=250Mi",
			map[string]string{"control": "256Mi", "collector": "300Mi", "aggregator": "250Mi",
				"snapshotexporter": "1Gi", "databaseexporter": "1Gi", "eventexporter": "512Mi"}, true},
		{"an unknown service is refused", "kollector=1Gi", nil, false},
		{"a bad quantity is refused", "collector=lots", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMemoryLimits(tc.in, defaults)
			if (err == nil) != tc.ok || (tc.ok && !maps.Equal(got, tc.want)) {
				t.Errorf("ParseMemoryLimits(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}
