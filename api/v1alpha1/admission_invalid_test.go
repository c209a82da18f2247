package v1alpha1_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// invalidCase is an object the API server must reject: a valid base with
// edits, and the field path the rejection must name.
type invalidCase struct {
	name  string
	base  string
	edits []edit
	field string
	// msg, when set, must appear in the error too.
	msg string
}

// edit changes a decoded object.
type edit func(t *testing.T, obj map[string]any)

// Valid objects, one per kind (and per sink type where blocks differ). Each
// invalid case breaks exactly one rule of one of them.
const (
	baseProfile = `
kind: KollectProfile
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: image, path: '$.spec.template.spec.containers[0].image'}
`
	baseTarget         = `{kind: KollectTarget, spec: {profileRef: {name: apps}}}`
	baseInventory      = `{kind: KollectInventory, spec: {}}`
	baseGitSink        = `{kind: KollectSnapshotSink, spec: {type: git, endpoint: 'https://git.example.com/a.git'}}`
	baseGitLabSink     = `{kind: KollectSnapshotSink, spec: {type: gitlab, endpoint: 'https://gitlab.example.com', secretRef: {name: gitlab}, gitlab: {project: team/inventory, branch: main}}}`
	baseS3Sink         = `{kind: KollectSnapshotSink, spec: {type: s3, endpoint: 's3://bucket/prefix'}}`
	baseAzureBlobSink  = `{kind: KollectSnapshotSink, spec: {type: azureblob, endpoint: 'azblob://account/container/prefix', secretRef: {name: azure}, azureBlob: {auth: sharedKey}, serialization: {format: parquet, compression: zstd}}}`
	basePostgresSink   = `{kind: KollectDatabaseSink, spec: {type: postgres, endpoint: 'postgres://db.example.com/inv', postgres: {table: rows}}}`
	baseKafkaSink      = `{kind: KollectEventSink, spec: {type: kafka, kafka: {brokers: ['kafka.example.com:9092'], topic: inventory}}}`
	baseNATSSink       = `{kind: KollectEventSink, spec: {type: nats, nats: {url: 'nats://nats.example.com:4222', subject: inventory}}}`
	baseScope          = `{kind: KollectScope, spec: {}}`
	baseConnectionTest = `{kind: KollectConnectionTest, spec: {sinkRef: {snapshotSinkRef: git-main}}}`
	baseClusterTarget  = `
kind: KollectClusterTarget
spec:
  profileRef: {name: apps, namespace: platform}
  namespaceSelector: {matchLabels: {team: a}}
`
	baseClusterInventory = `{kind: KollectClusterInventory, spec: {targetRefs: [apps]}}`
	baseClusterScope     = `{kind: KollectClusterScope, spec: {}}`
	baseReplay           = `{kind: KollectReplay, spec: {inventoryRef: {name: apps}, sink: database/pg}}`
)

var bases = []string{
	baseProfile, baseTarget, baseInventory, baseGitSink, baseGitLabSink, baseS3Sink, baseAzureBlobSink, basePostgresSink,
	baseKafkaSink, baseNATSSink, baseScope, baseConnectionTest, baseClusterTarget,
	baseClusterInventory, baseClusterScope, baseReplay,
}

func invalidCases() []invalidCase {
	return append(coreInvalidCases(), sinkInvalidCases()...)
}

func testInvalidObjects(t *testing.T, c client.Client) {
	ns := createNamespace(t, c, "invalid")
	cases := invalidCases()
	if len(cases) < 35 {
		t.Fatalf("only %d invalid cases; the table must hold at least 35", len(cases))
	}
	// A case proves something only if its base is valid.
	t.Run("the bases are valid", func(t *testing.T) {
		for i, base := range bases {
			obj := build(t, base, ns, fmt.Sprintf("base-%02d", i))
			if err := c.Create(context.Background(), obj); err != nil {
				t.Errorf("base %s: %v", obj.GetKind(), err)
			}
		}
	})
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := build(t, tc.base, ns, fmt.Sprintf("case-%02d", i))
			for _, e := range tc.edits {
				e(t, obj.Object)
			}
			assertInvalid(t, c.Create(context.Background(), obj), tc.field, tc.msg)
		})
	}
}

// build makes an object of a base, named and (for namespaced kinds)
// namespaced.
func build(t *testing.T, base, ns, name string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{Object: fromYAML(t, base)}
	obj.SetAPIVersion("kollect.dev/v1alpha1")
	obj.SetName(name)
	if !strings.HasPrefix(obj.GetKind(), "KollectCluster") {
		obj.SetNamespace(ns)
	}
	return obj
}

// set replaces the value at a dotted path (numeric segments index lists)
// with a value written in YAML, creating missing objects on the way.
func set(path, value string) edit {
	return func(t *testing.T, obj map[string]any) {
		t.Helper()
		v := fromYAML(t, "v: "+value)["v"]
		parent, last := walk(t, obj, path)
		assign(t, parent, last, v)
	}
}

// setValue is set for values built in Go.
func setValue(path string, v any) edit {
	return func(t *testing.T, obj map[string]any) {
		t.Helper()
		parent, last := walk(t, obj, path)
		assign(t, parent, last, runtime.DeepCopyJSONValue(v))
	}
}

// del removes the value at a dotted path.
func del(path string) edit {
	return func(t *testing.T, obj map[string]any) {
		t.Helper()
		parent, last := walk(t, obj, path)
		m, ok := parent.(map[string]any)
		if !ok {
			t.Fatalf("del %s: parent is not an object", path)
		}
		delete(m, last)
	}
}

func walk(t *testing.T, obj map[string]any, path string) (any, string) {
	t.Helper()
	segs := strings.Split(path, ".")
	var cur any = obj
	for _, seg := range segs[:len(segs)-1] {
		switch v := cur.(type) {
		case map[string]any:
			if _, ok := v[seg]; !ok {
				v[seg] = map[string]any{}
			}
			cur = v[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i >= len(v) {
				t.Fatalf("path %s: no index %s", path, seg)
			}
			cur = v[i]
		default:
			t.Fatalf("path %s: %s is not an object or list", path, seg)
		}
	}
	return cur, segs[len(segs)-1]
}

func assign(t *testing.T, parent any, key string, v any) {
	t.Helper()
	switch p := parent.(type) {
	case map[string]any:
		p[key] = v
	case []any:
		i, err := strconv.Atoi(key)
		if err != nil || i >= len(p) {
			t.Fatalf("no index %s", key)
		}
		p[i] = v
	default:
		t.Fatalf("cannot set %s on %T", key, parent)
	}
}

// names returns n sink names, as a list value.
func names(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("sink-%02d", i)
	}
	return out
}
