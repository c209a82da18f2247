package collector_test

import (
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/loadtest/simsource"
	"kollect.dev/kollect/services/collector"
)

// With --source-kubeconfig the collector lists and watches the objects
// from that API server (here the load test's simulated one, whose
// namespaces and Widgets the shared API server does not have) and follows
// its changes.
func TestSourceKubeconfigCollectsFromAnotherAPIServer(t *testing.T) {
	e := newEnv(t)
	src := simsource.New(simsource.Options{Objects: 16, Namespaces: 2, Tier: "sim"})
	srv, err := simsource.Serve(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	kubeconfig := filepath.Join(t.TempDir(), "source")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	ns := simsource.NamespaceName(0)
	gvk := v1alpha1.GroupVersionKind{Group: simsource.WidgetGroup, Version: "v1", Kind: "Widget"}
	cfg := targetConfig(t, ns, "widgets", 1, profile(ns, "widgets", gvk, attr("color", "$.spec.color")), in(ns))
	e.start(func(c *collector.Config) { c.SourceKubeconfig = kubeconfig })
	e.put(cfg)
	// Widgets are objects 3, 7, 11 and 15; namespace 0 holds 3 and 11.
	widget := func(i int) client.Object {
		o, ok := src.Object(i)
		if !ok {
			t.Fatalf("no object %d", i)
		}
		return o.(client.Object)
	}
	e.waitRows("the simulated source's Widgets", row(t, cfg, widget(3), map[string]any{"color": "red"}),
		row(t, cfg, widget(11), map[string]any{"color": "blue"}))
	if _, err := src.Delete(11); err != nil {
		t.Fatal(err)
	}
	e.waitRows("a Widget deleted in the source", row(t, cfg, widget(3), map[string]any{"color": "red"}))
}
