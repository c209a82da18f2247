package bigquery

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// TestPayloadKeepsProfileIntsExact: a Profile int reaches both the
// attributes JSON column and its INT64 column as a JSON integer; decoded
// from the bus as exporters decode it, one beyond 2^53 stays exact.
func TestPayloadKeepsProfileIntsExact(t *testing.T) {
	var rows []busv1.Row
	in := `[{"targetNamespace":"a","targetName":"t","namespace":"a","name":"n","uid":"u","group":"","version":"v1",` +
		`"kind":"Pod","attributes":{"replicas":9007199254740993,"cpu":0.5,"ready":true}}]`
	if err := busv1.Unmarshal([]byte(in), &rows); err != nil {
		t.Fatal(err)
	}
	b, err := payload(rows, declaredColumns(busv1.AttributeTypes{"replicas": "int", "cpu": "float", "ready": "bool"}))
	if err != nil {
		t.Fatal(err)
	}
	var line stagedRow
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatal(err)
	}
	if want := `{"cpu":0.5,"ready":true,"replicas":9007199254740993}`; line.Attributes != want {
		t.Errorf("attributes %s, want %s", line.Attributes, want)
	}
	var typed map[string]json.RawMessage
	if err := json.Unmarshal(b, &typed); err != nil {
		t.Fatal(err)
	}
	for col, want := range map[string]string{"attr_replicas": "9007199254740993", "attr_cpu": "0.5", "attr_ready": "true"} {
		if got := string(typed[col]); got != want {
			t.Errorf("%s %s, want %s", col, got, want)
		}
	}
	if strings.Count(string(b), "\n") != 1 {
		t.Errorf("payload %q is not one line", b)
	}
}

// BenchmarkPayload10k encodes the load payload of 10,000 rows of four
// attributes, without and with their four typed columns.
func BenchmarkPayload10k(b *testing.B) {
	rows := make([]busv1.Row, 10_000)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "deploys", Namespace: "team-a", Name: fmt.Sprintf("web-%d", i),
			UID: fmt.Sprintf("uid-%d", i), Group: "apps", Version: "v1", Kind: "Deployment",
			Attributes: map[string]any{"image": "nginx:1.27", "replicas": float64(i % 7), "ratio": 0.5, "ready": i%2 == 0}}
	}
	typed := declaredColumns(busv1.AttributeTypes{"image": "string", "replicas": "int", "ratio": "float", "ready": "bool"})
	for name, cols := range map[string][]typedColumn{"json only": nil, "with typed columns": typed} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := payload(rows, cols); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
