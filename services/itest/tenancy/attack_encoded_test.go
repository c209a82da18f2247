package tenancy

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// encodedYAML is a Profile and Target over team-a's ConfigMap encoded.
const encodedYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: encoded, namespace: team-a}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes:
  - {name: name, path: $.metadata.name}
  - {name: gzipped, path: "$.binaryData['settings.conf.gz']", optional: true}
  - {name: base64, path: "$.data['settings.b64']", optional: true}
  - {name: applied, path: "$.metadata.annotations['tool.example.com/applied']", optional: true}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: encoded, namespace: team-a}
spec:
  profileRef: {name: encoded}
  includedNamespaces: [team-a]
  names: [encoded]
`

// ownEncodedValues is F16 of SECURITY-3: team-a's own ConfigMap holds a
// password gzipped in binaryData, base64-encoded in data, and as a tool's
// gzipped, base64-encoded applied object in an annotation (the canary
// sweep cannot see inside gzip, so each attribute must be the marker).
func ownEncodedValues(t *testing.T) {
	applied, _ := json.Marshal(map[string]any{"kind": "ConfigMap",
		"data": map[string]string{"db.conf": "host=db password=" + ownEncoded}})
	create(t, asAlice(t), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "encoded",
			Annotations: map[string]string{"tool.example.com/applied": base64.StdEncoding.EncodeToString(gzipped(t, string(applied)))}},
		Data:       map[string]string{"settings.b64": base64.StdEncoding.EncodeToString([]byte("password=" + ownEncoded))},
		BinaryData: map[string][]byte{"settings.conf.gz": gzipped(t, "password="+ownEncoded)},
	})
	apply(t, asAlice(t), encodedYAML)
	row := waitRow(t, "encoded", "encoded")
	for _, l := range leakedAttributes(row, []attrCheck{
		{name: "gzipped", path: "binaryData gzip", marker: true},
		{name: "base64", path: "data base64", marker: true},
		{name: "applied", path: "annotation base64 of gzip", marker: true},
	}) {
		t.Error(l)
	}
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
