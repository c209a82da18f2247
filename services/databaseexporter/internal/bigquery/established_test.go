package bigquery

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTheBlockSecretRefReadsAsTheTopLevelOne(t *testing.T) {
	est, err := DecodeSpec(json.RawMessage(`{"type":"bigquery","bigquery":{"dataset":"d","table":"t","secretRef":{"name":"bq","namespace":"team-a"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	canon, err := DecodeSpec(json.RawMessage(`{"type":"bigquery","secretRef":{"name":"bq","namespace":"team-a"},"bigquery":{"dataset":"d","table":"t"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(canon, est); d != "" {
		t.Errorf("decoded spec (-canonical +established):\n%s", d)
	}
	if est.SecretRef == nil || est.SecretRef.Name != "bq" {
		t.Errorf("secretRef %+v, want bq", est.SecretRef)
	}
}
