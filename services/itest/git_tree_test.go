package itest

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// deploymentCRs is a Profile of images and replicas, a Target of the
// namespace's Deployments and an Inventory named "apps" bound to the
// snapshot sink "git".
const deploymentCRs = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: images, namespace: $ns}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: images, path: "$.spec.template.spec.containers[*].image", type: list}
  - {name: replicas, path: $.spec.replicas, type: int}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: deployments, namespace: $ns}
spec:
  profileRef: {name: images}
  includedNamespaces: [$ns]
`

// TestGitPerResourceTreeFollowsChanges exports Deployments as one file per
// resource, then follows an image change, a scale, a delete and the
// deletion of the last object, each as exactly one commit.
func TestGitPerResourceTreeFollowsChanges(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "git-tree", nil)
	repo := newRepo(t, "git-tree")
	apply(t, deploymentCRs+`
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: $ns}
spec:
  type: git
  endpoint: $url
  layout: {mode: perResource}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  snapshotSinkRefs: [git]
`, "$ns", ns, "$url", repo.URL)
	inv := busv1.NamespacedName{Namespace: ns, Name: "apps"}
	dump := ns + "/apps"
	objs := map[string]*appsv1.Deployment{
		"api":    deployment{ns: ns, name: "api", images: []string{"api:1.0", "envoy:1.30"}, replicas: 2}.create(t),
		"web":    deployment{ns: ns, name: "web", images: []string{"nginx:1.27"}, replicas: 1}.create(t),
		"worker": deployment{ns: ns, name: "worker", images: []string{"worker:3"}, replicas: 4}.create(t),
	}
	attrs := map[string]map[string]any{
		"api":    {"images": []any{"api:1.0", "envoy:1.30"}, "replicas": 2},
		"web":    {"images": []any{"nginx:1.27"}, "replicas": 1},
		"worker": {"images": []any{"worker:3"}, "replicas": 4},
	}
	// expect waits for the tree of the current attrs, checks the State and
	// the subject of HEAD, and returns the number of commits.
	expect := func(step string) int {
		t.Helper()
		files := map[string]busv1.Row{}
		var rows []busv1.Row
		for name, a := range attrs {
			row := deploymentRow(ns, "deployments", objs[name], a)
			files[fmt.Sprintf("default/%s/deployment/%s.yaml", ns, name)] = row
			rows = append(rows, row)
		}
		repo.waitTree(t, files, dump)
		sum := checksum(t, rows)
		st, err := repo.state("default", inv)
		if err != nil {
			t.Fatalf("%s: read State: %v", step, err)
		}
		if st.Checksum != sum || len(st.Files) != len(rows) {
			t.Errorf("%s: State has checksum %s and %d files, want %s and %d", step, st.Checksum, len(st.Files), sum, len(rows))
		}
		subjects := repo.subjects()
		if want := subject("default", inv, len(rows), sum); subjects[0] != want {
			t.Errorf("%s: HEAD subject %q, want %q", step, subjects[0], want)
		}
		return len(subjects)
	}
	commits := expect("initial export")
	steps := []struct {
		name   string
		change func()
	}{
		{"an image change", func() {
			update(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28" })
			attrs["web"]["images"] = []any{"nginx:1.28"}
		}},
		{"a scale", func() {
			update(t, ns, "worker", func(d *appsv1.Deployment) { n := int32(7); d.Spec.Replicas = &n })
			attrs["worker"]["replicas"] = 7
		}},
		{"a delete", func() { remove(t, objs["api"]); delete(attrs, "api") }},
		{"the deletion of the last objects", func() {
			remove(t, objs["web"])
			remove(t, objs["worker"])
			delete(attrs, "web")
			delete(attrs, "worker")
		}},
	}
	for _, s := range steps {
		s.change()
		got := expect(s.name)
		// Deleting the last two objects may land as one or two snapshots.
		if got != commits+1 && (s.name != "the deletion of the last objects" || got != commits+2) {
			t.Errorf("%s: %d new commits, want 1", s.name, got-commits)
		}
		commits = got
	}
}
