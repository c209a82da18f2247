package extract

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// helmReleaseJSON is a release as Helm 3 serialises it (trimmed chart files and manifest).
const helmReleaseJSON = `{
  "name": "web",
  "info": {
    "first_deployed": "2025-01-10T08:00:00.123456789Z",
    "last_deployed": "2025-02-03T04:05:06.789012345Z",
    "deleted": "",
    "description": "Upgrade complete",
    "status": "deployed",
    "notes": "Get the URL by running kubectl get svc web"
  },
  "chart": {
    "metadata": {
      "name": "nginx", "home": "https://nginx.org", "sources": ["https://github.com/nginx/nginx"],
      "version": "15.4.2", "description": "NGINX Open Source", "keywords": ["nginx", "http"],
      "maintainers": [{"name": "ops", "email": "ops@example.com"}], "apiVersion": "v2",
      "appVersion": "1.25.3", "annotations": {"category": "Infrastructure"}, "type": "application"
    },
    "lock": null,
    "templates": [{"name": "templates/deployment.yaml", "data": "YXBpVmVyc2lvbjogYXBwcy92MQ=="}],
    "values": {"replicaCount": 1, "image": {"repository": "nginx", "tag": ""}},
    "schema": null,
    "files": [{"name": "README.md", "data": "IyBuZ2lueA=="}]
  },
  "config": {"replicaCount": 3, "image": {"tag": "1.25.3"}, "auth": {"password": "hunter2"}, "ratio": 0.5},
  "manifest": "---\n# Source: nginx/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\n",
  "hooks": [],
  "version": 4,
  "namespace": "web"
}`

// helmSecret builds the Secret Helm's storage driver writes: data.release is, in the Secret's
// JSON, base64 of the release string, which is base64 of gzip of the release JSON.
func helmSecret(t testing.TB, releaseJSON string, compress bool) map[string]any {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(releaseJSON)); err != nil {
		t.Fatal(err)
	}
	payload := compact.Bytes()
	if compress {
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if _, err := w.Write(payload); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		payload = buf.Bytes()
	}
	release := base64.StdEncoding.EncodeToString(payload)
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata": map[string]any{
			"name": "sh.helm.release.v1.web.v4", "namespace": "web",
			"labels": map[string]any{"owner": "helm", "name": "web", "status": "deployed", "version": "4"},
		},
		"type": HelmReleaseSecretType,
		"data": map[string]any{"release": base64.StdEncoding.EncodeToString([]byte(release))},
	}
}

func helmSpec(allowSecret bool, fields ...string) Spec {
	s := Spec{GVK: secretGVK, AllowSecretExtraction: allowSecret}
	for _, f := range fields {
		s.Attributes = append(s.Attributes, Attribute{Name: f, Path: helmPrefix + f})
	}
	return s
}

func TestHelmReleaseFieldsDecode(t *testing.T) {
	want := map[string]any{
		"releaseName":  "web",
		"chartName":    "nginx",
		"chartVersion": "15.4.2",
		"appVersion":   "1.25.3",
		"revision":     int64(4),
		"status":       "deployed",
		"lastDeployed": "2025-02-03T04:05:06.789012345Z",
		"namespace":    "web",
		"config": map[string]any{
			"replicaCount": int64(3), "image": map[string]any{"tag": "1.25.3"}, "ratio": 0.5,
			"auth": Redacted(ReasonSensitiveKey),
		},
	}
	for _, compress := range []bool{true, false} {
		name := "a gzipped release"
		if !compress {
			name = "an uncompressed release"
		}
		t.Run(name, func(t *testing.T) {
			e := mustCompile(t, helmSpec(true, HelmFields...))
			got, err := e.Extract(helmSecret(t, helmReleaseJSON, compress))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("attributes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHelmPathsOnOtherSecretsAreMissing(t *testing.T) {
	e := mustCompile(t, helmSpec(false, "chartName", "revision"))
	obj := map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "data": map[string]any{"release": "eA=="}}
	got, err := e.Extract(obj)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"chartName": nil, "revision": nil}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestHelmCorruptReleasesAreErrors(t *testing.T) {
	tests := []struct{ name, release string }{
		{"the Secret data is not base64", "%%%"},
		{"the release is not base64", base64.StdEncoding.EncodeToString([]byte("%%%"))},
		{"the release is not JSON", base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte("{nope"))))},
		{"the gzip stream is cut", base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte{0x1f, 0x8b, 0x08, 0, 0})))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := map[string]any{"type": HelmReleaseSecretType, "data": map[string]any{"release": tc.release}}
			_, err := mustCompile(t, helmSpec(false, "chartName")).Extract(obj)
			if err == nil || !strings.Contains(err.Error(), `attribute "chartName"`) {
				t.Fatalf("required attribute: error = %v, want an attribute error", err)
			}
			opt := helmSpec(false, "chartName")
			opt.Attributes[0].Optional = true
			got, err := mustCompile(t, opt).Extract(obj)
			if err != nil || len(got) != 0 {
				t.Fatalf("optional attribute: got %v, %v; want it omitted", got, err)
			}
		})
	}
}

func TestHelmReleaseIsDecodedOncePerEvaluation(t *testing.T) {
	first := helmSecret(t, helmReleaseJSON, true)
	second := helmSecret(t, strings.Replace(helmReleaseJSON, `"name": "nginx"`, `"name": "other"`, 1), true)
	var c helmCache
	if v, _, _ := c.value(first, "chartName"); v != "nginx" {
		t.Fatalf("chartName = %v", v)
	}
	// Within one evaluation the cache answers from the release it already decoded.
	if v, _, _ := c.value(second, "chartName"); v != "nginx" {
		t.Fatalf("second read decoded again: chartName = %v", v)
	}

	one := mustCompile(t, helmSpec(true, "chartName"))
	all := mustCompile(t, helmSpec(true, HelmFields[:8]...)) // config decodes extra values
	allocs := func(e *Extractor) float64 {
		return testing.AllocsPerRun(20, func() { _, _ = e.Extract(first) })
	}
	if a1, a8 := allocs(one), allocs(all); a8 > a1+16 {
		t.Errorf("8 helm attributes allocate %v times, 1 attribute %v: the release is decoded more than once", a8, a1)
	}
}

func TestHelmPathsCompileOnlyWhereTheyMakeSense(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{"an unknown field", helmSpec(false, "chart"), `unknown Helm release field "chart"`},
		{"a kind other than Secret", Spec{GVK: deploymentGVK, Attributes: []Attribute{{Name: "c", Path: "helm:release.chartName"}}}, "need targetGVK to be the core v1 Secret"},
		{"not a release path", Spec{GVK: secretGVK, Attributes: []Attribute{{Name: "c", Path: "helm:chart.name"}}}, `"helm:release.<field>"`},
		{"config without the secret-extraction annotation", helmSpec(false, "config"), "kollect.dev/allow-secret-extraction"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Compile(tc.spec, Options{})
			if len(errs) != 1 || errs[0].Field != "spec.attributes[0].path" || !strings.Contains(errs[0].Error(), tc.want) {
				t.Fatalf("errors = %v, want one on spec.attributes[0].path containing %q", errs, tc.want)
			}
		})
	}
}
