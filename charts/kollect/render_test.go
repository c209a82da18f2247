package chart_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv/golden"
)

func TestLint(t *testing.T) {
	for _, name := range setNames() {
		t.Run("the chart lints cleanly with the "+name+" values", func(t *testing.T) {
			args := []string{"lint", ".", "--strict", "--namespace", namespace}
			if v := valuesSets[name]; v != "" {
				args = append(args, "--values", v)
			}
			helm(t, args...)
		})
	}
	t.Run("the CRD chart lints cleanly", func(t *testing.T) {
		helm(t, "lint", "../kollect-crds", "--strict")
	})
}

func TestTemplate(t *testing.T) {
	tests := []struct {
		set     string
		present []string
		absent  []string
	}{
		{set: "default",
			present: []string{"Deployment/kollect-control", "Deployment/kollect-collector", "Deployment/kollect-aggregator",
				"Deployment/kollect-snapshot-exporter", "Deployment/kollect-database-exporter", "Deployment/kollect-event-exporter",
				"Deployment/kollect-query", "APIService/v1alpha1.query.kollect.dev", "Job/kollect-init-secrets-pre", "Job/kollect-init-secrets-post",
				"StatefulSet/kollect-nats", "ValidatingWebhookConfiguration/kollect-control",
				"PodDisruptionBudget/kollect-control", "PodDisruptionBudget/kollect-nats", "ClusterRoleBinding/kollect-snapshot-exporter"},
			absent: []string{"HorizontalPodAutoscaler/kollect-snapshot-exporter", "ServiceMonitor/kollect", "Certificate/kollect-control-webhook",
				"Secret/kollect-nats-users", "Secret/kollect-query-cert"}},
		{set: "minimal",
			present: []string{"Deployment/kollect-snapshot-exporter", "StatefulSet/kollect-nats"},
			absent:  []string{"Deployment/kollect-database-exporter", "Deployment/kollect-event-exporter", "PodDisruptionBudget/kollect-control"}},
		{set: "full",
			present: []string{"HorizontalPodAutoscaler/kollect-database-exporter", "ServiceMonitor/kollect", "PrometheusRule/kollect",
				"Certificate/kollect-control-webhook", "Issuer/kollect-control-selfsigned", "NetworkPolicy/kollect-nats",
				"RoleBinding/kollect-event-exporter"},
			absent: []string{"ClusterRoleBinding/kollect-event-exporter"}},
		{set: "external-nats",
			present: []string{"Deployment/kollect-control"},
			absent:  []string{"StatefulSet/kollect-nats", "Secret/kollect-nats-users", "ConfigMap/kollect-nats"}},
		{set: "fleet", present: []string{"ServiceMonitor/kollect"}},
		{set: "nats-tls",
			present: []string{"Certificate/kollect-nats-server", "Certificate/kollect-nats-client", "Certificate/kollect-nats-ca",
				"Issuer/kollect-nats-ca", "Issuer/kollect-nats-selfsigned"},
			absent: []string{"Certificate/kollect-control-webhook"}},
	}
	for _, tt := range tests {
		t.Run("the "+tt.set+" values render the expected objects", func(t *testing.T) {
			got := index(decode(t, render(t, valuesSets[tt.set])))
			for _, p := range tt.present {
				if !slices.Contains(got, p) {
					t.Errorf("%s is missing from %v", p, got)
				}
			}
			for _, a := range tt.absent {
				if slices.Contains(got, a) {
					t.Errorf("%s is rendered but must not be", a)
				}
			}
		})
	}
	t.Run("without NATS auth no users Secret is made and services connect anonymously", func(t *testing.T) {
		objs := decode(t, render(t, "", "nats.auth.enabled=false"))
		for _, a := range containerArgs(t, find(t, objs, "Job", "kollect-init-secrets-pre")) {
			if strings.HasPrefix(a, "--nats-users") {
				t.Errorf("the init-secrets Job makes NATS users without auth: %s", a)
			}
		}
		for _, a := range containerArgs(t, find(t, objs, "Deployment", "kollect-collector")) {
			if strings.HasPrefix(a, "--nats-url=") && a != "--nats-url=nats://kollect-nats.kollect-system.svc:4222" {
				t.Errorf("collector %s: want the plain in-cluster URL", a)
			}
		}
		conf := find(t, objs, "ConfigMap", "kollect-nats").Object["data"].(map[string]any)["nats.conf"].(string)
		if strings.Contains(conf, "authorization") {
			t.Error("nats.conf has users without auth")
		}
	})
	t.Run("the query API admits only networkPolicy.queryFrom", func(t *testing.T) {
		np := find(t, decode(t, render(t, valuesSets["full"])), "NetworkPolicy", "kollect-query")
		rules, _, _ := unstructured.NestedSlice(np.Object, "spec", "ingress")
		for _, r := range rules {
			r := r.(map[string]any)
			if fmt.Sprint(r["ports"]) != "[map[port:https protocol:TCP]]" {
				continue
			}
			if got := fmt.Sprint(r["from"]); got != "[map[ipBlock:map[cidr:10.0.0.0/24]]]" {
				t.Errorf("the https rule admits %s, want queryFrom's ipBlock", got)
			}
			return
		}
		t.Errorf("no https rule in %v", rules)
	})
	t.Run("an external NATS without a URL is refused", func(t *testing.T) {
		out, err := helmErr(t, "template", releaseName, ".", "--set", "nats.enabled=false")
		if err == nil || !strings.Contains(out, "nats.external.url is required") {
			t.Errorf("helm template = %v, %s; want the nats.external.url error", err, out)
		}
	})
	t.Run("a two-node NATS cluster is refused by the schema", func(t *testing.T) {
		out, err := helmErr(t, "template", releaseName, ".", "--set", "nats.replicas=2")
		if err == nil || !strings.Contains(out, "replicas") {
			t.Errorf("helm template = %v, %s; want a schema error on nats.replicas", err, out)
		}
	})
}

// TestGoldenDefault compares the default render with testdata/default.golden as it is: nothing
// in it is random or time-dependent (TestTwoRendersAreByteIdentical).
func TestGoldenDefault(t *testing.T) {
	golden.Check(t, filepath.Join("testdata", "default.golden"), render(t, ""))
}

func TestCRDsAreCopiesOfDeployCRDs(t *testing.T) {
	src, err := filepath.Glob(repoPath(t, "api/crds/*.yaml"))
	if err != nil || len(src) == 0 {
		t.Fatalf("no CRDs in api/crds: %v", err)
	}
	for _, dir := range []string{"crds", "../kollect-crds/files"} {
		t.Run(dir+" holds exactly api/crds", func(t *testing.T) {
			var want []string
			for _, p := range src {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, filepath.Base(p))
				golden.Check(t, filepath.Join(dir, filepath.Base(p)), b)
			}
			got, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
			for i := range got {
				got[i] = filepath.Base(got[i])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s files differ from api/crds (-want +got):\n%s", dir, diff)
			}
		})
	}
	t.Run("the CRD chart renders every CRD with the keep policy", func(t *testing.T) {
		objs := decode(t, helm(t, "template", "kollect-crds", "../kollect-crds"))
		if len(objs) != len(src) {
			t.Errorf("rendered %d CRDs, want %d", len(objs), len(src))
		}
		for _, o := range objs {
			if o.GetKind() != "CustomResourceDefinition" || o.GetAnnotations()["helm.sh/resource-policy"] != "keep" {
				t.Errorf("%s/%s: want a CRD annotated helm.sh/resource-policy=keep", o.GetKind(), o.GetName())
			}
		}
	})
}

// natsPermission is one service's entry of files/nats-permissions.json.
type natsPermission struct {
	Publish        []string `json:"publish"`
	Subscribe      []string `json:"subscribe"`
	AllowResponses bool     `json:"allowResponses"`
}

// catalogPermissions are the NATS permissions pkg/bus gives each service.
func catalogPermissions() map[busv1.Service]natsPermission {
	out := map[busv1.Service]natsPermission{}
	for _, p := range bus.Catalogue().Permissions {
		out[p.Service] = natsPermission{Publish: p.Publish, Subscribe: p.Subscribe, AllowResponses: p.AllowResponses}
	}
	return out
}

func TestNATSPermissionsFileIsGeneratedFromTheBusCatalogue(t *testing.T) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(catalogPermissions()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("files", "nats-permissions.json"), buf.Bytes())
}
