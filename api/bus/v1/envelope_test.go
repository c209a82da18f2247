package busv1

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEnvelopeJSON(t *testing.T) {
	tests := []struct {
		name     string
		envelope Envelope
		contains []string
		omits    []string
	}{
		{
			name:     "an envelope with no items writes an empty list, never null",
			envelope: Envelope{SchemaVersion: SchemaVersion},
			contains: []string{`"items":[]`, `"cluster":""`},
			omits:    []string{`null`, `partIndex`, `partTotal`},
		},
		{
			name:     "the first part of a split snapshot writes partIndex 0",
			envelope: Envelope{PartIndex: 0, PartTotal: 3, Items: []Row{nodeRow()}},
			contains: []string{`"partIndex":0,"partTotal":3,"items":[`},
		},
		{
			name:     "a snapshot that is not split writes no part fields",
			envelope: Envelope{PartIndex: 2},
			omits:    []string{`partIndex`, `partTotal`},
		},
		{
			name: "exportedAt is written in UTC whatever the time's location",
			envelope: Envelope{ExportedAt: time.Date(2026, 1, 2, 5, 4, 5, 0,
				time.FixedZone("CET", 3600))},
			contains: []string{`"exportedAt":"2026-01-02T04:04:05Z"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.envelope)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.contains {
				if !strings.Contains(string(b), s) {
					t.Errorf("%s does not contain %s", b, s)
				}
			}
			for _, s := range tt.omits {
				if strings.Contains(string(b), s) {
					t.Errorf("%s contains %s", b, s)
				}
			}
		})
	}
}

func TestEnvelopeStamp(t *testing.T) {
	t.Run("stamping sets cluster and UTC time and leaves the original and checksum alone", func(t *testing.T) {
		orig := snapshotEventInline().Envelope
		at := time.Date(2026, 1, 2, 5, 4, 5, 0, time.FixedZone("CET", 3600))
		got := orig.Stamp("eu-west-1", at)
		if got.Cluster != "eu-west-1" || got.ExportedAt.Location() != time.UTC || !got.ExportedAt.Equal(at) {
			t.Errorf("Stamp = cluster %q at %v, want eu-west-1 at %v in UTC", got.Cluster, got.ExportedAt, at)
		}
		if orig.Cluster != "" || !orig.ExportedAt.IsZero() {
			t.Errorf("Stamp changed the original: cluster %q at %v", orig.Cluster, orig.ExportedAt)
		}
		if got.Checksum != orig.Checksum {
			t.Errorf("Stamp changed the checksum from %s to %s", orig.Checksum, got.Checksum)
		}
	})
}

func TestCompareRows(t *testing.T) {
	t.Run("rows sort by target namespace, target, namespace, name and uid", func(t *testing.T) {
		r := func(tns, tn, ns, n, uid string) Row {
			return Row{TargetNamespace: tns, TargetName: tn, Namespace: ns, Name: n, UID: uid}
		}
		want := []Row{
			r("", "nodes", "", "a", "9"),
			r("a", "pods", "a", "web", "1"),
			r("a", "pods", "a", "web", "2"),
			r("a", "pods", "b", "api", "0"),
			r("a", "svc", "a", "a", "0"),
			r("b", "pods", "a", "a", "0"),
		}
		got := slices.Clone(want)
		slices.Reverse(got)
		slices.SortFunc(got, CompareRows)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sorted rows (-want +got):\n%s", diff)
		}
	})
}
