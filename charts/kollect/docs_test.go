package chart_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// freeForm values are maps or lists handed to Kubernetes as they are: the docs name the
// key, not what is inside.
var freeForm = []string{"resources", "affinity", "nodeSelector", "tolerations", "podAnnotations", "labels",
	"digests", "overrides", "issuerRef", "podSecurityContext", "containerSecurityContext", "commonLabels",
	"rules", "extraArgs", "imagePullSecrets", "metricsFrom", "queryFrom", "secretNamespaces"}

// valueKeys flattens values.yaml into dotted keys, stopping at free-form values.
func valueKeys(prefix string, v any) []string {
	m, ok := v.(map[string]any)
	last := prefix[strings.LastIndex(prefix, ".")+1:]
	if !ok || slices.Contains(freeForm, last) || (len(m) == 0 && prefix != "") {
		return []string{prefix}
	}
	var out []string
	for k, sub := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, valueKeys(p, sub)...)
	}
	slices.Sort(out)
	return out
}

var perService = regexp.MustCompile(`^(control|collector|aggregator|query|exporters\.(snapshot|database|event))\.`)

func TestInstallDocsNameEveryValue(t *testing.T) {
	b, err := os.ReadFile("values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(b, &values); err != nil {
		t.Fatal(err)
	}
	docBytes, err := os.ReadFile(repoPath(t, "docs/install.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(docBytes)
	for _, k := range valueKeys("", values) {
		t.Run(k+" is documented in docs/install.md", func(t *testing.T) {
			last := k[strings.LastIndex(k, ".")+1:]
			candidates := []string{"`" + k + "`", "`" + perService.ReplaceAllString(k, "<service>.") + "`",
				"`" + regexp.MustCompile(`^exporters\.(snapshot|database|event)\.`).ReplaceAllString(k, "exporters.<family>.") + "`",
				"`." + last + "`", ", `" + last + "`"}
			for _, c := range candidates {
				if strings.Contains(doc, c) {
					return
				}
			}
			t.Errorf("docs/install.md does not mention %s (tried %v)", k, candidates)
		})
	}
}
