package snapshotexporter_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/snapshotexporter"
)

var inv = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

// system is a provisioned bus, a Git server and the exporter's config for
// one inventory bound to Git sinks.
type system struct {
	t     *testing.T
	nats  *testenv.NATS
	git   *testenv.Git
	creds backend.MapCredentials
	sinks []string
}

func newSystem(t *testing.T) *system {
	n := testenv.StartNATS(t)
	if err := bus.Provision(context.Background(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	g := testenv.StartGit(t, testenv.GitOptions{Username: "kollect", Password: "s3cret"})
	return &system{t: t, nats: n, git: g, creds: backend.MapCredentials{
		{Namespace: "team-a", Name: "good"}: {"username": []byte("kollect"), "password": []byte("s3cret")},
		{Namespace: "team-a", Name: "bad"}:  {"username": []byte("kollect"), "password": []byte("wrong")},
	}}
}

// addGitSink configures a Git sink named name, using Secret secret, that
// pushes to endpoint (one file per row).
func (s *system) addGitSink(name, secret, endpoint string) {
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGit, Endpoint: endpoint,
		SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: secret}, Cluster: "east"},
		Layout:     &v1alpha1.GitLayout{Mode: "perResource"}}
	raw, _ := json.Marshal(spec)
	s.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindSnapshotSink, Namespace: "team-a", Name: name}),
		busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "git", Namespace: "team-a", Name: name, Generation: 1, Cluster: "east", Spec: raw})
	s.sinks = append(s.sinks, name)
	ic := busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name, Generation: 1}
	for _, n := range s.sinks {
		ic.Bindings = append(ic.Bindings, binding(n))
	}
	s.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name}), ic)
}

func binding(name string) busv1.Binding {
	return busv1.Binding{SinkRef: busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: name}, SinkGeneration: 1}
}

func (s *system) put(key string, v any) {
	s.t.Helper()
	kv, err := s.nats.JS.KeyValue(context.Background(), bus.BucketConfig)
	if err != nil {
		s.t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if _, err := kv.Put(context.Background(), key, b); err != nil {
		s.t.Fatal(err)
	}
}

// start runs one snapshot exporter replica with the service's own backends
// until the test ends.
func (s *system) start() {
	c := snapshotexporter.DefaultConfig()
	c.AllowInClusterSinks, c.GitCacheDir = true, s.t.TempDir()
	rc := c.Runtime
	rc.Credentials, rc.RetryInitial, rc.RetryMax, rc.BreakerCooldown = s.creds, 20*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := exporter.Run(ctx, s.nats.JS, rc, snapshotexporter.Backends(c)...); err != nil {
			s.t.Errorf("exporter: %v", err)
		}
	}()
	s.t.Cleanup(func() { cancel(); wg.Wait() })
}

// publish publishes revision rev of the inventory: one row per image,
// named web-<i>, to every sink.
func (s *system) publish(rev uint64, images ...string) {
	s.t.Helper()
	var rows []busv1.Row
	for i, img := range images {
		name := "web-" + strconv.Itoa(i)
		rows = append(rows, busv1.Row{TargetNamespace: "team-a", TargetName: "deployments", Namespace: "team-a", Name: name,
			UID: "uid-" + name, Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{"image": img}})
	}
	env, err := snapshot.Envelope(inv, rev, 1, rows)
	if err != nil {
		s.t.Fatal(err)
	}
	ev := busv1.SnapshotEvent{Inventory: inv, Revision: rev, Generation: 1, Checksum: env.Checksum, ItemCount: env.ItemCount,
		CreatedAt: time.Now(), Reason: busv1.ReasonChange, Envelope: &env}
	for _, n := range s.sinks {
		ev.Bindings = append(ev.Bindings, binding(n))
	}
	b, _ := json.Marshal(ev)
	if _, err := s.nats.JS.Publish(context.Background(), bus.SnapshotSubject(inv), b); err != nil {
		s.t.Fatal(err)
	}
}

// revisions returns the Kollect-Revision trailers of repo's commits, oldest
// first.
func (s *system) revisions(repo string) []int {
	s.t.Helper()
	out := s.git.Run(s.t, repo+".git", "log", "--reverse", "--format=%(trailers:key=Kollect-Revision,valueonly)", "main")
	var revs []int
	for _, f := range strings.Fields(out) {
		n, err := strconv.Atoi(f)
		if err != nil {
			s.t.Fatalf("revision trailer %q", f)
		}
		revs = append(revs, n)
	}
	return revs
}

// waitRevision waits until repo's newest commit is revision rev.
func (s *system) waitRevision(repo string, rev int) {
	s.t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		out, err := testenvGitQuiet(s, repo)
		if err != nil {
			return false, nil //nolint:nilerr // no commit yet: keep waiting
		}
		return strings.TrimSpace(out) == strconv.Itoa(rev), nil
	})
	if err != nil {
		s.t.Fatalf("%s never reached revision %d (commits %v)", repo, rev, s.revisionsOrNone(repo))
	}
}

// checkIncreasing fails unless revs strictly increase: no revision was
// committed twice and none after a newer one.
func checkIncreasing(t *testing.T, repo string, revs []int) {
	t.Helper()
	for i := 1; i < len(revs); i++ {
		if revs[i] <= revs[i-1] {
			t.Fatalf("%s: commits of revisions %v: %d after %d", repo, revs, revs[i], revs[i-1])
		}
	}
}

// testenvGitQuiet returns the newest commit's revision trailer of repo, or
// an error while the branch does not exist yet.
func testenvGitQuiet(s *system, repo string) (string, error) {
	out, err := exec.Command("git", "-C", filepath.Join(s.git.Root, repo+".git"), "log", "-1",
		"--format=%(trailers:key=Kollect-Revision,valueonly)", "main").Output()
	return string(out), err
}

func (s *system) revisionsOrNone(repo string) []int {
	if _, err := testenvGitQuiet(s, repo); err != nil {
		return nil
	}
	return s.revisions(repo)
}
