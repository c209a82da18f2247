package tenancy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

// attrCheck is what one attribute of team-a's own Deployment row must hold
// besides no canary in any form.
type attrCheck struct {
	name, path string
	// marker: the value is absent, null, the redaction marker or a list of
	// markers: never a value derived from the redacted one.
	marker bool
	// notLengthOf: the value is not the length of this string.
	notLengthOf string
}

// container is the JSONPath of the canary container.
const container = "$.spec.template.spec.containers[0]"

// celContainer is the CEL expression of the canary container.
const celContainer = "object.spec.template.spec.containers[0]"

var jsonPathBypasses = []attrCheck{
	{name: "viaIndex", path: container + ".env[0].value", marker: true},
	{name: "viaFilter", path: container + `.env[?(@.name=="DB_PASSWORD")].value`, marker: true},
	{name: "urlViaFilter", path: container + `.env[?(@.name=="DATABASE_URL")].value`, marker: true},
	{name: "awsViaIndex", path: container + ".env[2].value", marker: true},
	{name: "envList", path: container + ".env"},
	{name: "argList", path: container + ".args"},
	{name: "argViaIndex", path: container + ".args[0]"},
	{name: "annotations", path: "$.metadata.annotations"},
	{name: "lastAppliedByName", path: "$.metadata.annotations['" + lastApplied + "']"},
}

var celBypasses = []attrCheck{
	{name: "celFilter", path: "cel:" + celContainer + `.env.filter(e, e.name == "DB_PASSWORD")[0].value`, marker: true},
	{name: "celBase64", path: "cel:base64.encode(bytes(" + celContainer + `.env.filter(e, e.name == "DB_PASSWORD")[0].value))`, marker: true},
	{name: "celSize", path: "cel:size(" + celContainer + `.env.filter(e, e.name == "DB_PASSWORD")[0].value)`, notLengthOf: ownEnv},
	{name: "celURL", path: "cel:" + celContainer + ".env[1].value", marker: true},
	{name: "celAWS", path: "cel:" + celContainer + `.env.filter(e, e.name.endsWith("ACCESS_KEY"))[0].value`, marker: true},
	{name: "celArgs", path: "cel:" + celContainer + ".args"},
	{name: "celLastApplied", path: `cel:object.metadata.annotations["` + lastApplied + `"]`},
}

func redactionVectors() []vector {
	return []vector{
		{"a JSONPath index, filter, annotation or args selection yields no value", func(t *testing.T) {
			ownDeploymentRow(t, "bypass-jsonpath", "", jsonPathBypasses)
		}},
		{"a CEL filter, base64 or size yields no value", func(t *testing.T) {
			ownDeploymentRow(t, "bypass-cel", "", celBypasses)
		}},
		{"a Resource export without default pruning holds no value", func(t *testing.T) {
			ownDeploymentRow(t, "bypass-resource", "export: {mode: Resource, include: All, prune: {defaults: false}}", nil)
		}},
		{"a Secret's annotations yield none of its data without the opt-in", ownSecretAnnotations},
		{"team-a's own inventory reaches its Git repository redacted", ownInventory},
		{"a password inside gzip or base64 values is redacted", ownEncodedValues},
	}
}

// bypassYAML is a Profile and Target over team-a's own Deployment app.
const bypassYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: $name, namespace: team-a}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes: $attributes
  $export
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: $name, namespace: team-a}
spec:
  profileRef: {name: $name}
  includedNamespaces: [team-a]
  names: [app]
`

// ownDeploymentRow collects team-a's Deployment app through a Profile
// holding checks (every attribute optional, plus its name) and export,
// and checks the row.
func ownDeploymentRow(t *testing.T, name, export string, checks []attrCheck) {
	attrs := []map[string]any{{"name": "name", "path": "$.metadata.name"}}
	for _, c := range checks {
		attrs = append(attrs, map[string]any{"name": c.name, "path": c.path, "optional": true})
	}
	js, _ := json.Marshal(attrs)
	apply(t, asAlice(t), bypassYAML, "$name", name, "$attributes", string(js), "$export", export)
	row := waitRow(t, name, "app")
	leaks := leakedAttributes(row, checks)
	if export != "" && row.Attributes["resource"] == nil {
		leaks = append(leaks, "the row has no exported resource")
	}
	for _, l := range leaks {
		t.Error(l)
	}
}

// waitRow waits for Target team-a/target's row of object team-a/object.
func waitRow(t *testing.T, target, object string) busv1.Row {
	t.Helper()
	var row busv1.Row
	testenv.Eventually(t, refusalWait, "the row of "+object, func() error {
		rows, err := rowsOf(t.Context(), teamA, target)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.Namespace == teamA && r.Name == object {
				row = r
				return nil
			}
		}
		conds, _ := conditionsOf(t.Context(), "KollectTarget", teamA, target)
		return fmt.Errorf("no row yet; Target conditions: %s", describe(conds))
	}, testenv.Every(200*time.Millisecond))
	return row
}

// leakedAttributes describes every way row breaks checks: a canary in any
// attribute, a value where the marker belongs, a canary's length.
func leakedAttributes(row busv1.Row, checks []attrCheck) []string {
	var out []string
	for name, v := range row.Attributes {
		data, _ := json.Marshal(v)
		for _, f := range search([]place{{name, data}}, allCanaries()) {
			out = append(out, fmt.Sprintf("attribute %s holds %s (%s): %s", name, f.needle, f.form, data))
		}
	}
	for _, c := range checks {
		v := row.Attributes[c.name]
		if c.marker && !onlyMarkers(v) {
			out = append(out, fmt.Sprintf("attribute %s (%s) = %s, want absent, null or the redaction marker", c.name, c.path, jsonOf(v)))
		}
		if n, ok := v.(float64); ok && c.notLengthOf != "" && int(n) == len(c.notLengthOf) {
			out = append(out, fmt.Sprintf("attribute %s (%s) = %v, the length of the redacted value", c.name, c.path, n))
		}
	}
	return out
}

// onlyMarkers reports whether v is nil, a redaction marker or a list of
// them.
func onlyMarkers(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return x["redacted"] == true
	case []any:
		for _, e := range x {
			if !onlyMarkers(e) {
				return false
			}
		}
		return true
	}
	return false
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return strings.TrimSpace(string(data))
}
