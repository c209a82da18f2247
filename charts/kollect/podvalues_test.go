package chart_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// renderYAML renders the chart with values given as YAML text.
func renderYAML(t *testing.T, values string) []*unstructured.Unstructured {
	t.Helper()
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	return decode(t, render(t, path))
}

// podSpec returns the pod template spec of a Deployment or StatefulSet.
func podSpec(o *unstructured.Unstructured) map[string]any {
	s, _, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec")
	return s
}

// podMeta returns the labels or annotations of a workload's pod template.
func podMeta(o *unstructured.Unstructured, field string) map[string]string {
	m, _, _ := unstructured.NestedStringMap(o.Object, "spec", "template", "metadata", field)
	return m
}

// firstContainer returns the first container of a workload's pod template.
func firstContainer(o *unstructured.Unstructured) map[string]any {
	return podSpec(o)["containers"].([]any)[0].(map[string]any)
}

// namesOf returns the name field of every item of a list of objects (env, volumes, mounts).
func namesOf(list any) []string {
	var out []string
	items, _ := list.([]any)
	for _, i := range items {
		out = append(out, i.(map[string]any)["name"].(string))
	}
	return out
}

// workloads returns the six Deployments and the NATS StatefulSet by component.
func workloads(t *testing.T, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	out := deployments(t, objs)
	out["nats"] = find(t, objs, "StatefulSet", "kollect-nats")
	return out
}

func TestServiceAccountAnnotationsGiveAServiceACloudIdentity(t *testing.T) {
	objs := renderYAML(t, `
exporters:
  snapshot:
    serviceAccount:
      annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::111122223333:role/kollect"}
  database:
    serviceAccount:
      annotations: {iam.gke.io/gcp-service-account: kollect@project.iam.gserviceaccount.com}
`)
	want := map[string]map[string]string{
		"kollect-snapshot-exporter": {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/kollect"},
		"kollect-database-exporter": {"iam.gke.io/gcp-service-account": "kollect@project.iam.gserviceaccount.com"},
	}
	for _, o := range objs {
		if o.GetKind() != "ServiceAccount" || o.GetAnnotations()["helm.sh/hook"] != "" { // the hook Jobs' own
			continue
		}
		if diff := cmp.Diff(want[o.GetName()], o.GetAnnotations()); diff != "" {
			t.Errorf("ServiceAccount %s annotations (-want +got):\n%s", o.GetName(), diff)
		}
	}
}

func TestExtraEnvAndVolumesReachEveryServiceContainer(t *testing.T) {
	objs := renderYAML(t, `
extraEnv:
  - {name: HTTPS_PROXY, value: "http://proxy:3128"}
  - {name: AWS_REGION, value: eu-west-1}
extraVolumes:
  - {name: corp-ca, configMap: {name: corp-ca}}
extraVolumeMounts:
  - {name: corp-ca, mountPath: /etc/corp-ca, readOnly: true}
exporters:
  snapshot:
    extraEnv:
      - {name: AWS_REGION, value: us-east-1}
      - {name: SSL_CERT_FILE, value: /etc/corp-ca/ca.crt}
    extraVolumes:
      - {name: scratch, emptyDir: {}}
    extraVolumeMounts:
      - {name: scratch, mountPath: /scratch}
`)
	for name, d := range deployments(t, objs) {
		c := firstContainer(d)
		env := containerEnv(d)
		if env["HTTPS_PROXY"] != "http://proxy:3128" {
			t.Errorf("%s: HTTPS_PROXY = %q, want the chart-wide value", name, env["HTTPS_PROXY"])
		}
		wantRegion, wantVolumes, wantMounts := "eu-west-1", []string{"corp-ca"}, []string{"corp-ca"}
		if name == "snapshot-exporter" {
			wantRegion, wantVolumes, wantMounts = "us-east-1", []string{"corp-ca", "scratch"}, []string{"corp-ca", "scratch"}
			if env["SSL_CERT_FILE"] != "/etc/corp-ca/ca.crt" {
				t.Errorf("%s: SSL_CERT_FILE = %q", name, env["SSL_CERT_FILE"])
			}
		}
		if env["AWS_REGION"] != wantRegion {
			t.Errorf("%s: AWS_REGION = %q, want %q (a service's variable wins)", name, env["AWS_REGION"], wantRegion)
		}
		if n := namesOf(c["env"]); len(n) != len(env) {
			t.Errorf("%s: env lists a name twice: %v", name, n)
		}
		if got := namesOf(podSpec(d)["volumes"]); !slices.Equal(got[len(got)-len(wantVolumes):], wantVolumes) {
			t.Errorf("%s: volumes %v, want them to end with %v", name, got, wantVolumes)
		}
		if got := namesOf(c["volumeMounts"]); !slices.Equal(got[len(got)-len(wantMounts):], wantMounts) {
			t.Errorf("%s: volume mounts %v, want them to end with %v", name, got, wantMounts)
		}
	}
	if env := firstContainer(find(t, objs, "StatefulSet", "kollect-nats"))["env"]; slices.Contains(namesOf(env), "HTTPS_PROXY") {
		t.Error("NATS got the services' extraEnv")
	}
}

func TestPodLabelsAnnotationsAndPriorityReachEveryPod(t *testing.T) {
	objs := renderYAML(t, `
podLabels: {team: platform, app.kubernetes.io/name: not-kollect}
podAnnotations: {example.com/owner: platform}
priorityClassName: kollect-high
collector:
  podLabels: {team: collectors, azure.workload.identity/use: "true"}
  podAnnotations: {example.com/owner: collectors}
  priorityClassName: kollect-critical
nats:
  podLabels: {tier: bus}
`)
	for name, w := range workloads(t, objs) {
		labels, annotations := podMeta(w, "labels"), podMeta(w, "annotations")
		team, owner, priority := "platform", "platform", "kollect-high"
		if name == "collector" {
			team, owner, priority = "collectors", "collectors", "kollect-critical"
			if labels["azure.workload.identity/use"] != "true" {
				t.Errorf("collector pod labels %v: want its own podLabels", labels)
			}
		}
		if labels["team"] != team || annotations["example.com/owner"] != owner {
			t.Errorf("%s: pod labels %v, annotations %v; want team=%s, owner=%s", name, labels, annotations, team, owner)
		}
		if labels["app.kubernetes.io/name"] != "kollect" || labels["app.kubernetes.io/component"] != name {
			t.Errorf("%s: pod labels %v: the chart's own labels must win", name, labels)
		}
		if got := podSpec(w)["priorityClassName"]; got != priority {
			t.Errorf("%s: priorityClassName %v, want %s", name, got, priority)
		}
		if (labels["tier"] == "bus") != (name == "nats") {
			t.Errorf("%s: pod labels %v: nats.podLabels belong to NATS only", name, labels)
		}
	}
	if a := podMeta(find(t, objs, "StatefulSet", "kollect-nats"), "annotations"); a["checksum/config"] == "" {
		t.Errorf("NATS pod annotations %v lost checksum/config", a)
	}
}

func TestTopologySpreadConstraintsSpreadEachServiceOwnPods(t *testing.T) {
	objs := renderYAML(t, `
topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
aggregator:
  topologySpreadConstraints:
    - maxSkew: 2
      topologyKey: kubernetes.io/hostname
      whenUnsatisfiable: DoNotSchedule
      labelSelector: {matchLabels: {custom: selector}}
nats:
  topologySpreadConstraints:
    - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
`)
	for name, w := range workloads(t, objs) {
		cs, _ := podSpec(w)["topologySpreadConstraints"].([]any)
		if len(cs) != 1 {
			t.Fatalf("%s: topologySpreadConstraints %v, want one", name, cs)
		}
		c := cs[0].(map[string]any)
		sel, _, _ := unstructured.NestedStringMap(c, "labelSelector", "matchLabels")
		key, want := c["topologyKey"], map[string]string{"app.kubernetes.io/name": "kollect",
			"app.kubernetes.io/instance": releaseName, "app.kubernetes.io/component": name}
		wantKey := "topology.kubernetes.io/zone"
		if name == "aggregator" {
			wantKey, want = "kubernetes.io/hostname", map[string]string{"custom": "selector"}
		}
		if key != wantKey {
			t.Errorf("%s: topologyKey %v, want %s", name, key, wantKey)
		}
		if diff := cmp.Diff(want, sel); diff != "" {
			t.Errorf("%s: labelSelector (-want +got):\n%s", name, diff)
		}
	}
}

func TestImagePullSecretsReachEveryPod(t *testing.T) {
	objs := renderYAML(t, "imagePullSecrets: [{name: registry-creds}]\n")
	for name, w := range workloads(t, objs) {
		if got := namesOf(podSpec(w)["imagePullSecrets"]); !slices.Equal(got, []string{"registry-creds"}) {
			t.Errorf("%s: imagePullSecrets %v", name, got)
		}
	}
	out, err := helmErr(t, "template", releaseName, ".", "--set", "imagePullSecrets[0]=registry-creds")
	if err == nil || !strings.Contains(out, "imagePullSecrets") {
		t.Errorf("a bare name in imagePullSecrets = %v, %s; want a schema error", err, out)
	}
}

func TestLogLevelAndFormatReachEveryServiceFlags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values string
		want   map[string][]string
	}{
		{name: "the defaults pass no log flag (info, JSON)", want: map[string][]string{}},
		{name: "logLevel debug turns every service to -v=1", values: "logLevel: debug\n",
			want: map[string][]string{"*": {"--v=1"}}},
		{name: "a service's logLevel wins", values: "logLevel: debug\naggregator: {logLevel: info}\nexporters: {event: {logLevel: debug}}\n",
			want: map[string][]string{"*": {"--v=1"}, "aggregator": nil}},
		{name: "a service alone in debug", values: "exporters: {database: {logLevel: debug}}\n",
			want: map[string][]string{"database-exporter": {"--v=1"}}},
		{name: "logFormat console turns on --log-development", values: "logFormat: console\n",
			want: map[string][]string{"*": {"--log-development=true"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, d := range deployments(t, renderYAML(t, tc.values)) {
				var got []string
				for _, a := range containerArgs(t, d) {
					if strings.HasPrefix(a, "--v=") || strings.HasPrefix(a, "--log-") {
						got = append(got, a)
					}
				}
				want, ok := tc.want[name]
				if !ok {
					want = tc.want["*"]
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: log flags %v, want %v", name, got, want)
				}
			}
		})
	}
	out, err := helmErr(t, "template", releaseName, ".", "--set", "logLevel=trace")
	if err == nil || !strings.Contains(out, "logLevel") {
		t.Errorf("logLevel=trace = %v, %s; want a schema error naming logLevel", err, out)
	}
}
