package extract

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// FuzzRedaction generates objects whose sensitive values are canaries (under sensitive keys,
// in env entries, after flags, in last-applied, in URLs, in reference blocks, in Secret data)
// and evaluates arbitrary paths on them twice: once with canaries "CANARY-A-n", once with
// "CANARY-B-n", everything else equal. Outputs and errors must be identical (no result may
// depend on a redacted value, not even through a filter or a predicate) and hold no canary.
func FuzzRedaction(f *testing.F) {
	shapes := [][]byte{{}, {1}, {0, 3, 4, 5, 7, 8, 9}, {2, 0, 0, 3, 1, 4, 2, 5}, {1, 3, 3, 9, 9, 4, 4, 0, 1, 2}, {0, 0, 0, 0, 0, 0}}
	paths := []string{
		"$.spec", "$..value", "$..*", "$.metadata.annotations", "$.spec.items[*].env", `$..env[?(@.name=="DB_PASSWORD")].value`,
		"$.spec.items[0].env[0].value", `$.spec.items[*].env[?(@.value=="CANARY-A-1")].name`, `{.spec.items[*].env[?(@.value>"C")].name}`,
		"$.spec.items[*].args", "$.data", "cel:object", "cel:object.spec", `cel:object.spec.items.map(i, i.?env.orValue([]))`,
		`cel:object.spec.items.exists(i, has(i.env) && i.env.exists(e, e.value.startsWith("CANARY-A")))`,
		`cel:object.spec.items.filter(i, has(i.env)).map(i, i.env.map(e, size(e.value)))`,
		`cel:base64.encode(bytes(object.spec.items[0].env[0].value))`, `cel:"x".matches(object.spec.items[0].env[0].value)`,
		`cel:object.spec.items[0].args.join(",")`, `cel:int(object.spec.items[0].env[0].value)`, `cel:string(object.spec.password)`,
		`cel:object.metadata.annotations.map(k, object.metadata.annotations[k])`, `cel:"%s".format([object.spec])`,
		`cel:object.spec.items[0].args.indexOf("--token")`, `cel:object.?spec.?password.orValue("none")`,
	}
	for i, p := range paths {
		f.Add(shapes[i%len(shapes)], p)
	}
	f.Fuzz(func(t *testing.T, shape []byte, path string) {
		a, b := generateObject(shape, "CANARY-A-"), generateObject(shape, "CANARY-B-")
		gvk := deploymentGVK
		if a["kind"] == "Secret" {
			gvk = secretGVK
		}
		opts := Options{CELTimeout: time.Minute} // wall time must not make A and B differ
		spec := Spec{GVK: gvk, AllowFullResourceExport: true, Attributes: []Attribute{{Name: "v", Path: path}},
			Export: &Export{Mode: ExportResource, Include: IncludeSpecAndStatus, Prune: &ExportPrune{Defaults: new(bool)}}}
		if e, errs := Compile(spec, opts); len(errs) == 0 {
			outA, errA := e.Extract(a)
			outB, errB := e.Extract(b)
			sameAndClean(t, path, outA, outB, errA, errB)
		}
		if p, err := CompilePredicateOptions(strings.TrimPrefix(path, celPrefix), opts); err == nil {
			okA, errA := p.Match(a)
			okB, errB := p.Match(b)
			sameAndClean(t, "predicate "+path, okA, okB, errA, errB)
		}
	})
}

// sameAndClean fails when the two evaluations differ or hold a canary the path did not spell.
func sameAndClean(t *testing.T, what string, a, b any, errA, errB error) {
	t.Helper()
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) || fmt.Sprint(errA) != fmt.Sprint(errB) {
		t.Fatalf("%s depends on redacted values:\nA: %s %v\nB: %s %v", what, ja, errA, jb, errB)
	}
	if !strings.Contains(strings.ToUpper(what), "CAN") && (strings.Contains(string(ja), canary) || strings.Contains(fmt.Sprint(errA), canary)) {
		t.Fatalf("%s leaks a canary: %s %v", what, ja, errA)
	}
}

// generator builds an object from fuzz bytes; canaries are placed only where the rules must
// redact them.
type generator struct {
	in     []byte
	prefix string
	n      int
}

func (g *generator) next() int {
	if len(g.in) == 0 {
		return 0
	}
	c := int(g.in[0])
	g.in = g.in[1:]
	return c
}

func (g *generator) canary() string {
	g.n++
	return fmt.Sprintf("%s%d", g.prefix, g.n)
}

var (
	neutralKeys    = []string{"name", "items", "config", "value", "labels", "x", "port", "image", "key"}
	neutralStrings = []string{"info", "app:1", "--port=80", "-v", "https://example.com/x", "token-ttl", "DB_HOST"}
	sensitiveKeys  = []string{"password", "apiKey", "AWS_SECRET_ACCESS_KEY", "tls.key", "credentials", "tokens", "clientSecret", "Authorization", "SENTRY_DSN"}
	sensitiveNames = []string{"DB_PASSWORD", "GITHUB_TOKEN", "secretKey", "db-pass", "STRIPE_API_KEY"}
)

func generateObject(shape []byte, prefix string) map[string]any {
	g := &generator{in: shape, prefix: prefix}
	kind := "Deployment"
	if g.next()%2 == 1 {
		kind = "Secret"
	}
	obj := map[string]any{"apiVersion": "v1", "kind": kind,
		"metadata": map[string]any{"name": "o", "annotations": map[string]any{
			lastAppliedAnnotation: `{"env":[{"name":"DB_PASSWORD","value":"` + g.canary() + `"}]}`, "team": "a"}},
		"spec": g.mapNode(3)}
	if kind == "Secret" {
		obj["data"] = map[string]any{"k": g.canary()}
		obj["stringData"] = map[string]any{"k": g.canary()}
		obj["metadata"].(map[string]any)["annotations"].(map[string]any)["copy"] = g.canary()
		obj["type"] = "Opaque"
	}
	return obj
}

func (g *generator) mapNode(depth int) map[string]any {
	m := map[string]any{}
	for range g.next()%5 + 1 {
		g.entry(m, depth)
	}
	return m
}

func (g *generator) entry(m map[string]any, depth int) {
	switch op := g.next() % 10; {
	case op == 1 && depth > 0:
		m["items"] = []any{g.mapNode(depth - 1), g.mapNode(depth - 1)}
	case op == 2:
		m[neutralKeys[g.next()%len(neutralKeys)]] = neutralStrings[g.next()%len(neutralStrings)]
	case op == 3:
		m[sensitiveKeys[g.next()%len(sensitiveKeys)]] = g.canarySubtree()
	case op == 4:
		m["env"] = []any{
			map[string]any{"name": sensitiveNames[g.next()%len(sensitiveNames)], "value": g.canary()},
			map[string]any{"name": "LOG_LEVEL", "value": "info"},
			map[string]any{"name": "DB_URL", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"key": g.canary()}}},
			map[string]any{"name": "DATABASE_URL", "value": "postgres://u:" + g.canary() + "@db/app"},
		}
	case op == 5:
		m[[]string{"args", "command"}[g.next()%2]] = []any{"--password=" + g.canary(), "--token", g.canary(), "-v", "sh -c 'psql --password " + g.canary() + "'"}
	case op == 6:
		m["n"] = int64(g.next())
	case op == 7:
		m["annotations"] = map[string]any{lastAppliedAnnotation: `{"a":"` + g.canary() + `"}`}
	case op == 8:
		m[neutralKeys[g.next()%len(neutralKeys)]] = []any{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0." + g.canary(),
			"-----BEGIN PRIVATE KEY-----\n" + g.canary() + "\n-----END PRIVATE KEY-----", "password=" + g.canary()}
	case depth > 0:
		m[neutralKeys[g.next()%len(neutralKeys)]] = g.mapNode(depth - 1)
	default:
		m["leaf"] = "ok"
	}
}

// canarySubtree is any value holding canaries: under a sensitive key all of it is redacted.
func (g *generator) canarySubtree() any {
	switch g.next() % 3 {
	case 0:
		return g.canary()
	case 1:
		return []any{g.canary(), map[string]any{"x": g.canary()}}
	}
	return map[string]any{"user": "u", "inner": g.canary()}
}
