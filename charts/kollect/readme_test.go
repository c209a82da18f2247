package chart_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	yaml3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/pkg/testenv/golden"
)

// valueRow is one row of the README's values table.
type valueRow struct {
	key, typ, def, doc string
}

// valueRows walks values.yaml's nodes in file order: one row per leaf, and per free-form map
// or list (those are handed to Kubernetes as they are), with the comment above the key.
func valueRows(t *testing.T, prefix string, n *yaml3.Node, inherited string) []valueRow {
	t.Helper()
	var rows []valueRow
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if prefix != "" {
			key = prefix + "." + k.Value
		}
		doc := commentText(k.HeadComment)
		if v.Kind == yaml3.MappingNode && len(v.Content) > 0 && !slices.Contains(freeForm, k.Value) {
			rows = append(rows, valueRows(t, key, v, doc)...)
			continue
		}
		if doc == "" && v.LineComment != "" {
			doc = commentText(v.LineComment)
		}
		if doc == "" {
			doc = schemaDoc(key)
		}
		if doc == "" && len(rows) > 0 && k.Line == n.Content[i-1].Line+1 && i > 0 {
			// A key right under a commented one shares its comment (e.g. podAnnotations after podLabels).
			doc = "See `" + rows[len(rows)-1].key + "`."
		}
		var val any
		if err := v.Decode(&val); err != nil {
			t.Fatalf("values.yaml %s: %v", key, err)
		}
		def, err := json.Marshal(val)
		if err != nil {
			t.Fatalf("values.yaml %s: %v", key, err)
		}
		rows = append(rows, valueRow{key: key, typ: nodeType(v), def: string(def), doc: doc})
	}
	if len(rows) > 0 && rows[0].doc == "" {
		rows[0].doc = inherited
	}
	return rows
}

// schema is values.schema.json, read once.
var schema = func() map[string]any {
	b, err := os.ReadFile("values.schema.json")
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}()

// schemaDoc returns the description values.schema.json gives the dotted key, following
// $ref into the definitions; "" when it has none.
func schemaDoc(key string) string {
	node := schema
	for _, part := range strings.Split(key, ".") {
		props, _ := node["properties"].(map[string]any)
		next, ok := props[part].(map[string]any)
		if !ok {
			return ""
		}
		node = next
	}
	if d, ok := node["description"].(string); ok {
		return d
	}
	if ref, ok := node["$ref"].(string); ok {
		def, _ := schema["definitions"].(map[string]any)[strings.TrimPrefix(ref, "#/definitions/")].(map[string]any)
		d, _ := def["description"].(string)
		return d
	}
	return ""
}

// commentText turns a YAML comment block into one line of Markdown.
func commentText(c string) string {
	var parts []string
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "#"))
		if l != "" {
			parts = append(parts, l)
		}
	}
	return strings.ReplaceAll(strings.Join(parts, " "), "|", `\|`)
}

func nodeType(v *yaml3.Node) string {
	switch v.Kind {
	case yaml3.MappingNode:
		return "object"
	case yaml3.SequenceNode:
		return "list"
	}
	if t := strings.TrimPrefix(v.Tag, "!!"); t != "str" {
		return t
	}
	return "string"
}

// readme is the chart's README.md: what it installs, how to install and check it, and the
// values table generated from values.yaml.
func readme(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml3.Node
	if err := yaml3.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	chartYAML, err := os.ReadFile("Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ Description, Version, AppVersion, KubeVersion string }
	if err := yaml.Unmarshal(chartYAML, &meta); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, readmeHead, meta.Description, meta.Version, meta.AppVersion, meta.KubeVersion)
	sb.WriteString("| Key | Type | Default | Description |\n|---|---|---|---|\n")
	for _, r := range valueRows(t, "", doc.Content[0], "") {
		fmt.Fprintf(&sb, "| `%s` | %s | `%s` | %s |\n", r.key, r.typ, r.def, r.doc)
	}
	return []byte(sb.String())
}

const readmeHead = `# Kollect Helm chart

<!-- Generated from Chart.yaml and values.yaml by readme_test.go: edit those, then run
     go test ./charts/kollect -update. -->

%s

Chart version %s, Kollect %s, Kubernetes %s.

It installs control, the collector, the aggregator, the query service (history through the API
server) and the snapshot, database and event exporters (one Deployment each, one ServiceAccount
and RBAC each), NATS JetStream (a StatefulSet, or an external NATS), the validating webhook, and
optionally a ServiceMonitor, PrometheusRule, NetworkPolicies and exporter HPAs. Its ` + "`crds/`" + ` folder
installs the CRDs on a first install only; the kollect-crds chart upgrades them. Nothing it
renders is random: hook Jobs make the NATS passwords and the query certificate in the cluster.

## Install

` + "```sh" + `
# from a checkout of https://github.com/kollect-dev/kollect
helm upgrade --install kollect-crds charts/kollect-crds -n kollect-system --create-namespace
helm upgrade --install kollect charts/kollect -n kollect-system --skip-crds
# a trial cluster (kind, minikube): one replica of everything, no volumes
helm upgrade --install kollect charts/kollect -n kollect-system --skip-crds -f charts/kollect/values-small.yaml
# images you built and pushed (make images PUSH=<registry>/<path>)
helm upgrade --install kollect charts/kollect -n kollect-system --skip-crds --set image.registry=<registry>/<path>
# or from an OCI registry the charts were pushed to (helm push kollect-<version>.tgz oci://<registry>/<path>)
helm upgrade --install kollect oci://<registry>/<path>/kollect --version <version> -n kollect-system
` + "```" + `

Check it:

` + "```sh" + `
kubectl -n kollect-system wait --for=condition=Available deployment -l app.kubernetes.io/instance=kollect --timeout=5m
kubectl -n kollect-system rollout status statefulset/kollect-nats
kubectl get apiservice v1alpha1.query.kollect.dev
` + "```" + `

Then apply the self-contained example, docs/examples/in-cluster/ (an inventory without a sink),
and read it with ` + "`kubectl get kollectinventories -A`" + ` and ` + "`kollect history kollect-demo/demo`" + `.
docs/install.md explains the values by topic: small installs, your own images, credentials made
in the cluster, cloud identity (IRSA, Workload Identity), NATS TLS, external NATS, fleets,
in-cluster sinks, webhook certificates, monitoring, upgrades.

## Values

values.schema.json rejects unknown keys and wrong types.

`

func TestReadmeIsGeneratedFromValues(t *testing.T) {
	golden.Check(t, "README.md", readme(t))
	t.Run("helm show readme prints it", func(t *testing.T) {
		if out := helm(t, "show", "readme", "."); !strings.Contains(string(out), "| `nats.tls.enabled` | bool | `false` |") {
			t.Errorf("helm show readme does not show the values table:\n%.400s", out)
		}
	})
}
