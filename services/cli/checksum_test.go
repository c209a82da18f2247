package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

func TestChecksumRecomputesAnExportedSnapshotOffline(t *testing.T) {
	rows := make([]busv1.Row, 700)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "web", Namespace: "team-a", Name: fmt.Sprintf("app-%03d", i),
			UID: fmt.Sprintf("u%d", i), Group: "apps", Version: "v1", Kind: "Deployment",
			Attributes: map[string]any{"image": "api:1", "note": "<&>"}}
	}
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "apps"}, 3, 1, rows)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := snapshot.ChecksumV1(env.Items)
	if err != nil {
		t.Fatal(err)
	}
	if v1 == env.Checksum {
		t.Fatal("version 1 and 2 agree; the test cannot tell them apart")
	}
	reversed := append([]busv1.Row(nil), env.Items...)
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	envJSON, _ := json.Marshal(env.Stamp("prod", env.ExportedAt))
	listYAML, _ := yaml.Marshal(reversed)
	var nd strings.Builder
	for _, r := range reversed {
		b, _ := json.Marshal(r)
		nd.Write(append(b, '\n'))
	}
	files := map[string]string{
		"a JSON envelope":              write("env.json", envJSON),
		"a YAML row list out of order": write("rows.yaml", listYAML),
		"NDJSON rows out of order":     write("rows.ndjson", []byte(nd.String())),
	}
	for what, path := range files {
		t.Run(what, func(t *testing.T) {
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"checksum", path}, env.Checksum},
				{[]string{"checksum", "--version", "1", path}, v1},
			} {
				code, out, errOut := run(t, c.args...)
				if code != 0 || strings.TrimSpace(out) != c.want {
					t.Errorf("%v: exit %d, out %q, err %q; want %s", c.args, code, out, errOut, c.want)
				}
			}
		})
	}
	if code, _, errOut := run(t, "checksum", write("bad.json", []byte(`{"kind":"x"}`))); code == 0 || !strings.Contains(errOut, "envelope with items") {
		t.Errorf("an object that is no envelope: exit %d, %q", code, errOut)
	}
}
