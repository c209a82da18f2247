package chart_test

import (
	"flag"
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/aggregator"
	"kollect.dev/kollect/services/collector"
	"kollect.dev/kollect/services/control"
	"kollect.dev/kollect/services/databaseexporter"
	"kollect.dev/kollect/services/eventexporter"
	"kollect.dev/kollect/services/query"
	"kollect.dev/kollect/services/snapshotexporter"
)

// binder is a service's Config.BindFlags.
type binder func(*flag.FlagSet)

// flagSets returns, per Deployment component, the flags the service's binary defines: those
// app.Main parses (the service's Config.BindFlags, the logging and the Process flags).
func flagSets() map[string]func() *flag.FlagSet {
	newFS := func(name string, bind binder) func() *flag.FlagSet {
		return func() *flag.FlagSet {
			fs, _, _ := app.NewFlagSet(name, bind)
			fs.Init(name, flag.ContinueOnError)
			return fs
		}
	}
	controlCfg, collectorCfg, aggregatorCfg := control.DefaultConfig(), collector.DefaultConfig(), aggregator.DefaultConfig()
	snapshotCfg, databaseCfg, eventCfg := snapshotexporter.DefaultConfig(), databaseexporter.DefaultConfig(), eventexporter.DefaultConfig()
	queryCfg := query.DefaultConfig()
	return map[string]func() *flag.FlagSet{
		"control":           newFS("control", controlCfg.BindFlags),
		"collector":         newFS("collector", collectorCfg.BindFlags),
		"aggregator":        newFS("aggregator", aggregatorCfg.BindFlags),
		"snapshot-exporter": newFS("snapshot-exporter", snapshotCfg.BindFlags),
		"database-exporter": newFS("database-exporter", databaseCfg.BindFlags),
		"event-exporter":    newFS("event-exporter", eventCfg.BindFlags),
		"query":             newFS("query", queryCfg.BindFlags),
	}
}

var envRef = regexp.MustCompile(`\$\(([A-Z_]+)\)`)

// containerArgs returns the args of the first container of a Deployment with $(VAR)
// references expanded the way the kubelet does, from literal env values or placeholders.
func containerArgs(t *testing.T, d *unstructured.Unstructured) []string {
	t.Helper()
	env := containerEnv(d)
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	var out []string
	for _, a := range cs[0].(map[string]any)["args"].([]any) {
		out = append(out, envRef.ReplaceAllStringFunc(a.(string), func(ref string) string {
			v, ok := env[envRef.FindStringSubmatch(ref)[1]]
			if !ok {
				t.Errorf("arg %q references an environment variable the container does not set", a)
			}
			return v
		}))
	}
	return out
}

// containerEnv returns the env of the first container of a Deployment: literal values, and
// "from-<NAME>" for those set from a reference.
func containerEnv(d *unstructured.Unstructured) map[string]string {
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	env := map[string]string{}
	list, _ := cs[0].(map[string]any)["env"].([]any) // a Job's container may have none
	for _, e := range list {
		e := e.(map[string]any)
		v, _ := e["value"].(string)
		if v == "" {
			v = "from-" + e["name"].(string)
		}
		env[e["name"].(string)] = v
	}
	return env
}

func TestEveryRenderedArgIsAFlagOfItsService(t *testing.T) {
	sets := flagSets()
	for _, name := range setNames() {
		objs := decode(t, render(t, valuesSets[name]))
		for _, d := range objs {
			if d.GetKind() != "Deployment" {
				continue
			}
			component := d.GetLabels()["app.kubernetes.io/component"]
			t.Run(name+" values: "+component+" accepts its args", func(t *testing.T) {
				newFS, ok := sets[component]
				if !ok {
					t.Fatalf("no flag set known for component %q", component)
				}
				fs := newFS()
				fs.SetOutput(io.Discard)
				if err := fs.Parse(containerArgs(t, d)); err != nil {
					t.Fatalf("%s rejects the chart's args: %v", component, err)
				}
				if fs.NArg() != 0 {
					t.Errorf("%s: positional args %v", component, fs.Args())
				}
				u, err := url.Parse(fs.Lookup("nats-url").Value.String())
				if err != nil || u.Scheme != "nats" || u.Host == "" {
					t.Errorf("--nats-url = %q: want a nats:// URL (%v)", fs.Lookup("nats-url").Value, err)
				}
				if u.User != nil {
					t.Errorf("--nats-url = %q names a user: credentials never go in the arguments", u)
				}
				for _, a := range containerArgs(t, d) {
					if strings.Contains(a, "from-"+app.EnvNATSPassword) {
						t.Errorf("arg %q holds the NATS password", a)
					}
				}
				if name != "minimal" && name != "default" && name != "fleet" {
					return
				}
				if got, want := containerEnv(d)[app.EnvNATSUser], component; got != want {
					t.Errorf("$%s = %q, want %q (one user per service)", app.EnvNATSUser, got, want)
				}
			})
		}
	}
}
