package chart_test

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kollect.dev/kollect/pkg/app"
)

// deployments returns the Deployments of a rendering by component.
func deployments(t *testing.T, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if o.GetKind() == "Deployment" {
			out[o.GetLabels()["app.kubernetes.io/component"]] = o
		}
	}
	if len(out) < 6 {
		t.Fatalf("rendered %d Deployments, want the six services", len(out))
	}
	return out
}

// memoryLimitEnv returns the resource the container's $KOLLECT_MEMORY_LIMIT is read from; ""
// when it has none.
func memoryLimitEnv(d *unstructured.Unstructured) string {
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	for _, e := range cs[0].(map[string]any)["env"].([]any) {
		e := e.(map[string]any)
		if e["name"] == app.EnvMemoryLimit {
			r, _, _ := unstructured.NestedString(e, "valueFrom", "resourceFieldRef", "resource")
			return r
		}
	}
	return ""
}

func TestPprofIsServedOnLoopbackOnlyWhenEnabled(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string
		want string
	}{
		{"the defaults render no pprof listener", nil, ""},
		{"pprof.enabled serves every service's profiles on loopback", []string{"pprof.enabled=true"}, "--pprof-bind-address=127.0.0.1:6060"},
		{"pprof.port moves the listener", []string{"pprof.enabled=true", "pprof.port=7070"}, "--pprof-bind-address=127.0.0.1:7070"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := decode(t, render(t, "", tc.sets...))
			for name, d := range deployments(t, objs) {
				var got []string
				for _, a := range containerArgs(t, d) {
					if strings.HasPrefix(a, "--pprof-bind-address") {
						got = append(got, a)
					}
				}
				if want := []string{tc.want}; (tc.want == "" && len(got) != 0) || (tc.want != "" && !slices.Equal(got, want)) {
					t.Errorf("%s: pprof args %v, want %q", name, got, tc.want)
				}
			}
			for _, o := range objs {
				ports, _, _ := unstructured.NestedSlice(o.Object, "spec", "ports")
				for _, p := range ports {
					if port := p.(map[string]any)["port"]; o.GetKind() == "Service" && (port == int64(6060) || port == int64(7070)) {
						t.Errorf("Service %s exposes the pprof port", o.GetName())
					}
				}
			}
		})
	}
}

func TestEveryContainerWithAMemoryLimitGivesTheGoRuntimeAShareOfIt(t *testing.T) {
	t.Run("by default every service reads its container's limit and the ratio", func(t *testing.T) {
		for name, d := range deployments(t, decode(t, render(t, ""))) {
			if got := memoryLimitEnv(d); got != "limits.memory" {
				t.Errorf("%s: $%s from %q, want the container's limits.memory", name, app.EnvMemoryLimit, got)
			}
			if !slices.Contains(containerArgs(t, d), "--memory-limit-ratio=0.85") {
				t.Errorf("%s: no --memory-limit-ratio=0.85 in %v", name, containerArgs(t, d))
			}
		}
	})
	t.Run("memoryLimitPercent sets the share", func(t *testing.T) {
		d := deployments(t, decode(t, render(t, "", "memoryLimitPercent=70")))["collector"]
		if !slices.Contains(containerArgs(t, d), "--memory-limit-ratio=0.7") {
			t.Errorf("collector args %v: want --memory-limit-ratio=0.7", containerArgs(t, d))
		}
	})
	t.Run("a container without a memory limit gets no soft limit", func(t *testing.T) {
		ds := deployments(t, decode(t, render(t, "", "aggregator.resources.limits=null")))
		if got := memoryLimitEnv(ds["aggregator"]); got != "" {
			t.Errorf("aggregator without a limit reads $%s from %q", app.EnvMemoryLimit, got)
		}
		for _, a := range containerArgs(t, ds["aggregator"]) {
			if strings.HasPrefix(a, "--memory-limit") {
				t.Errorf("aggregator without a limit has %s", a)
			}
		}
		if memoryLimitEnv(ds["collector"]) == "" {
			t.Error("the collector lost its limit when the aggregator's was removed")
		}
	})
}
