package busv1_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// BenchmarkDecodeEnvelope10k decodes a 10k-row envelope as exporters do.
func BenchmarkDecodeEnvelope10k(b *testing.B) {
	rows := make([]busv1.Row, 10_000)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: fmt.Sprintf("ns-%03d", i%100),
			Name: fmt.Sprintf("pod-%05d", i), UID: fmt.Sprintf("0f8e%04x-1c2d-4e5f-8a9b-%012x", i%65536, i),
			Version: "v1", Kind: "Pod", Attributes: map[string]any{
				"image": fmt.Sprintf("registry.example.com/app-%d:1.%d", i%40, i%7), "restarts": float64(i % 13),
				"cpu": float64(i%8) / 4, "ready": i%5 != 0,
				"labels": map[string]any{"app": fmt.Sprintf("app-%d", i%40)}}}
	}
	body, err := json.Marshal(busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Items: rows})
	if err != nil {
		b.Fatal(err)
	}
	large := []byte(strings.Replace(string(body), `"restarts":1,`, `"restarts":9007199254740993,`, 1))
	for _, c := range []struct {
		name string
		body []byte
	}{{"small-numbers", body}, {"one-large-integer", large}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				var env busv1.Envelope
				if err := unmarshal(c.body, &env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var unmarshal = busv1.Unmarshal
