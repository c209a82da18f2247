package chart_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kollect.dev/kollect/services/control/initsecrets"
)

// valuesSmall is the trial profile docs/install.md and NOTES name.
const valuesSmall = "values-small.yaml"

// TestTwoRendersAreByteIdentical renders every values set twice: nothing random or
// time-dependent may be rendered (credentials are made in the cluster, init-secrets.yaml), or
// GitOps tools would rotate them on every sync.
func TestTwoRendersAreByteIdentical(t *testing.T) {
	for name, v := range valuesSets {
		t.Run("the "+name+" values", func(t *testing.T) {
			first, second := render(t, v), render(t, v)
			if !bytes.Equal(first, second) {
				t.Errorf("two renders differ:\n%s", firstDiff(first, second))
			}
		})
	}
}

// firstDiff names the first line two renders differ in.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + la[i] + "\n+ " + lb[i]
		}
	}
	return "one render is longer"
}

// podSpecs returns the pod spec of every Deployment, StatefulSet and Job, by Kind/name.
func podSpecs(objs []*unstructured.Unstructured) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, o := range objs {
		switch o.GetKind() {
		case "Deployment", "StatefulSet", "Job":
			spec, _, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec")
			out[o.GetKind()+"/"+o.GetName()] = spec
		}
	}
	return out
}

func TestTheSmallValuesRunOneReplicaOfEverything(t *testing.T) {
	objs := decode(t, render(t, valuesSmall))
	var cpu, memory resource.Quantity
	deployments := 0
	for _, o := range objs {
		switch o.GetKind() {
		case "PodDisruptionBudget", "PersistentVolumeClaim", "HorizontalPodAutoscaler":
			t.Errorf("%s/%s is rendered by the small values", o.GetKind(), o.GetName())
		case "Deployment", "StatefulSet":
			if o.GetKind() == "Deployment" {
				deployments++
			}
			if n, _, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "replicas"); fmt.Sprint(n) != "1" {
				t.Errorf("%s/%s has %v replicas, want 1", o.GetKind(), o.GetName(), n)
			}
			if v, ok, _ := unstructured.NestedSlice(o.Object, "spec", "volumeClaimTemplates"); ok && len(v) > 0 {
				t.Errorf("%s/%s claims volumes: a trial cluster may have no StorageClass", o.GetKind(), o.GetName())
			}
			cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			for _, c := range cs {
				req, _, _ := unstructured.NestedStringMap(c.(map[string]any), "resources", "requests")
				q, m := resource.MustParse(req["cpu"]), resource.MustParse(req["memory"])
				if q.Cmp(resource.MustParse("10m")) > 0 || m.Cmp(resource.MustParse("64Mi")) > 0 {
					t.Errorf("%s/%s requests %s CPU and %s memory, want at most 10m and 64Mi", o.GetKind(), o.GetName(), req["cpu"], req["memory"])
				}
				cpu.Add(q)
				memory.Add(m)
			}
		}
	}
	if deployments != 7 {
		t.Errorf("%d Deployments, want 7 (control, collector, aggregator, query and the three exporters)", deployments)
	}
	if !slices.Contains(containerArgs(t, find(t, objs, "Deployment", "kollect-control")), "--bus-replicas=1") {
		t.Error("control does not provision one-copy (R1) streams for the one NATS server")
	}
	t.Logf("the small values request %s CPU and %s memory in all", cpu.String(), memory.String())
}

func TestTheChartInstallsTheTagMakeImagesBuilds(t *testing.T) {
	cmd := exec.Command("make", "-s", "--no-print-directory", "image-tag")
	cmd.Dir = repoPath(t, ".")
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "TAG" && name != "VERSION" && name != "MAKEFLAGS" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make image-tag: %v", err)
	}
	tag := strings.TrimSpace(string(out))
	for _, tt := range []struct {
		name string
		sets []string
		want string
	}{
		{"the defaults pull the chart's registry at the tag make images and a release push", nil, "ghcr.io/kollect-dev/%s:" + tag},
		{"image.registry and image.tag install your own build", []string{"image.registry=localhost:5000/k", "image.tag=v9.9.9-dev"},
			"localhost:5000/k/%s:v9.9.9-dev"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, o := range decode(t, render(t, "", tt.sets...)) {
				if o.GetKind() != "Deployment" && o.GetKind() != "Job" {
					continue
				}
				cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
				img := cs[0].(map[string]any)["image"].(string)
				bin := strings.Split(img[strings.LastIndex(img, "/")+1:], ":")[0]
				if want := strings.Replace(tt.want, "%s", bin, 1); img != want {
					t.Errorf("%s/%s pulls %s, want %s", o.GetKind(), o.GetName(), img, want)
				}
			}
		})
	}
}

func TestInitSecretsJobsMakeWhatTheChartNoLongerRenders(t *testing.T) {
	t.Run("the default values make the NATS users and the query certificate, then set the caBundle", func(t *testing.T) {
		objs := decode(t, render(t, ""))
		for _, o := range objs {
			if o.GetKind() == "Secret" {
				t.Errorf("Secret %s is rendered", o.GetName())
			}
		}
		pre := find(t, objs, "Job", "kollect-init-secrets-pre")
		if got := pre.GetAnnotations()["helm.sh/hook"]; got != "pre-install,pre-upgrade" {
			t.Errorf("pre Job hook %q, want pre-install,pre-upgrade", got)
		}
		args := strings.Join(containerArgs(t, pre), " ")
		// Every password NATS and the services read must be one the Job makes.
		var keys []string
		for _, o := range objs {
			if o.GetKind() != "Deployment" && o.GetKind() != "StatefulSet" {
				continue
			}
			cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			for _, e := range cs[0].(map[string]any)["env"].([]any) {
				if name, ok, _ := unstructured.NestedString(e.(map[string]any), "valueFrom", "secretKeyRef", "name"); ok && name == "kollect-nats-users" {
					key, _, _ := unstructured.NestedString(e.(map[string]any), "valueFrom", "secretKeyRef", "key")
					keys = append(keys, key)
				}
			}
		}
		if len(keys) == 0 {
			t.Fatal("nothing reads kollect-nats-users: the check would prove nothing")
		}
		users := strings.Split(strings.SplitN(strings.Split(args, "--nats-users=")[1], " ", 2)[0], ",")
		for _, k := range keys {
			if !slices.Contains(users, k) {
				t.Errorf("NATS user %s is read from kollect-nats-users but the Job does not make it (%v)", k, users)
			}
		}
		mount := ""
		for _, v := range podSpecs(objs)["Deployment/kollect-query"]["volumes"].([]any) {
			if name, _, _ := unstructured.NestedString(v.(map[string]any), "secret", "secretName"); name != "" && v.(map[string]any)["name"] == "query-certs" {
				mount = name
			}
		}
		for _, want := range []string{"--nats-users-secret=kollect-nats-users", "--serving-secret=" + mount,
			"--serving-hosts=kollect-query.kollect-system.svc,kollect-query.kollect-system.svc.cluster.local"} {
			if mount == "" || !strings.Contains(args, want) {
				t.Errorf("pre Job args %q lack %s", args, want)
			}
		}
		post := find(t, objs, "Job", "kollect-init-secrets-post")
		if got := strings.Join(containerArgs(t, post), " "); !strings.Contains(got, "--apiservice=v1alpha1.query.kollect.dev") ||
			!strings.Contains(got, "--serving-secret="+mount) || post.GetAnnotations()["helm.sh/hook"] != "post-install,post-upgrade" {
			t.Errorf("post Job %q (hook %s): want the caBundle of the APIService set after install and upgrade", got, post.GetAnnotations()["helm.sh/hook"])
		}
		if ca, ok, _ := unstructured.NestedString(find(t, objs, "APIService", "v1alpha1.query.kollect.dev").Object, "spec", "caBundle"); ok {
			t.Errorf("the APIService's caBundle is rendered: %.20s", ca)
		}
		role := find(t, objs, "Role", "kollect-init-secrets")
		rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
		names, _, _ := unstructured.NestedStringSlice(rules[1].(map[string]any), "resourceNames")
		if !slices.Equal(names, []string{"kollect-nats-users", mount}) {
			t.Errorf("the Job may get and update %v, want exactly its two Secrets", names)
		}
	})
	t.Run("every values set renders Jobs whose args init-secrets accepts", func(t *testing.T) {
		jobs := 0
		for _, name := range setNames() {
			for _, o := range decode(t, render(t, valuesSets[name])) {
				if o.GetKind() != "Job" {
					continue
				}
				jobs++
				args := containerArgs(t, o)
				if args[0] != initsecrets.Command {
					t.Errorf("%s values: Job %s runs %v, want the %s subcommand", name, o.GetName(), args, initsecrets.Command)
				} else if err := initsecrets.CheckArgs(args[1:]); err != nil {
					t.Errorf("%s values: Job %s: %v", name, o.GetName(), err)
				}
			}
		}
		if jobs == 0 {
			t.Fatal("no values set renders a Job: the check would prove nothing")
		}
	})
	t.Run("cert-manager sets the caBundle: no post Job", func(t *testing.T) {
		objs := decode(t, render(t, "", "query.certManager.enabled=true"))
		if slices.Contains(index(objs), "Job/kollect-init-secrets-post") {
			t.Error("the post Job is rendered with cert-manager")
		}
		api := find(t, objs, "APIService", "v1alpha1.query.kollect.dev")
		if api.GetAnnotations()["cert-manager.io/inject-ca-from"] != "kollect-system/kollect-query-serving" {
			t.Errorf("APIService annotations %v: want cainjector's", api.GetAnnotations())
		}
	})
	t.Run("an existing NATS Secret and no query service need no hook", func(t *testing.T) {
		for _, o := range decode(t, render(t, "", "nats.auth.existingSecret=mine", "query.enabled=false")) {
			if o.GetAnnotations()["helm.sh/hook"] != "" {
				t.Errorf("%s/%s is a hook", o.GetKind(), o.GetName())
			}
		}
	})
}

func TestChartWideAndPerServiceConventions(t *testing.T) {
	t.Run("chart-wide nodeSelector, tolerations and affinity reach every pod; a service's own wins", func(t *testing.T) {
		objs := decode(t, render(t, "", "nodeSelector.pool=kollect", "tolerations[0].key=dedicated", "tolerations[0].operator=Exists",
			"affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight=1",
			"affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key=x",
			"affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator=Exists",
			"collector.nodeSelector.pool=collectors"))
		specs := podSpecs(objs)
		if len(specs) < 10 {
			t.Fatalf("only %d pod specs rendered", len(specs))
		}
		for name, spec := range specs {
			want := "kollect"
			if name == "Deployment/kollect-collector" {
				want = "collectors"
			}
			if got, _, _ := unstructured.NestedString(spec, "nodeSelector", "pool"); got != want {
				t.Errorf("%s nodeSelector pool=%q, want %q", name, got, want)
			}
			if tol, _, _ := unstructured.NestedSlice(spec, "tolerations"); len(tol) != 1 {
				t.Errorf("%s tolerations %v, want the chart-wide one", name, tol)
			}
			if _, ok, _ := unstructured.NestedSlice(spec, "affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution"); !ok {
				t.Errorf("%s has no chart-wide node affinity", name)
			}
		}
	})
	t.Run("serviceAccount.create false runs a service as a ServiceAccount you made, bound to its RBAC", func(t *testing.T) {
		objs := decode(t, render(t, "", "collector.serviceAccount.create=false", "collector.serviceAccount.name=mine",
			"control.serviceAccount.name=ctl"))
		got := index(objs)
		if slices.Contains(got, "ServiceAccount/kollect-collector") || slices.Contains(got, "ServiceAccount/mine") {
			t.Error("a ServiceAccount is rendered for the collector with create false")
		}
		if !slices.Contains(got, "ServiceAccount/ctl") {
			t.Error("control's ServiceAccount is not named control.serviceAccount.name")
		}
		if sa := podSpecs(objs)["Deployment/kollect-collector"]["serviceAccountName"]; sa != "mine" {
			t.Errorf("the collector runs as %v, want mine", sa)
		}
		subject := func(binding string) string {
			s, _, _ := unstructured.NestedSlice(find(t, objs, "ClusterRoleBinding", binding).Object, "subjects")
			return s[0].(map[string]any)["name"].(string)
		}
		if subject("kollect-collector") != "mine" || subject("kollect-control") != "ctl" {
			t.Errorf("bindings name %s and %s, want mine and ctl", subject("kollect-collector"), subject("kollect-control"))
		}
	})
	t.Run("nameOverride and fullnameOverride rename every object", func(t *testing.T) {
		objs := decode(t, render(t, "", "fullnameOverride=inv"))
		find(t, objs, "Deployment", "inv-control")
		find(t, objs, "StatefulSet", "inv-nats")
		objs = decode(t, render(t, "", "nameOverride=inventory"))
		d := find(t, objs, "Deployment", "kollect-inventory-control")
		if l := d.GetLabels()["app.kubernetes.io/name"]; l != "inventory" {
			t.Errorf("app.kubernetes.io/name=%s, want the nameOverride", l)
		}
	})
	t.Run("NATS takes its security context from values", func(t *testing.T) {
		objs := decode(t, render(t, "", "nats.podSecurityContext.runAsUser=null", "nats.podSecurityContext.fsGroup=null",
			"nats.podSecurityContext.runAsGroup=null"))
		sc, _, _ := unstructured.NestedMap(podSpecs(objs)["StatefulSet/kollect-nats"], "securityContext")
		if _, ok := sc["runAsUser"]; ok || sc["runAsNonRoot"] != true {
			t.Errorf("NATS pod securityContext %v: want runAsUser dropped, runAsNonRoot kept", sc)
		}
	})
	t.Run("a PodDisruptionBudget is rendered only above one replica", func(t *testing.T) {
		got := index(decode(t, render(t, "", "control.replicas=1", "nats.replicas=1", "exporters.event.hpa.enabled=true",
			"exporters.event.replicas=1")))
		for _, want := range []string{"PodDisruptionBudget/kollect-collector", "PodDisruptionBudget/kollect-event-exporter"} {
			if !slices.Contains(got, want) {
				t.Errorf("%s is missing", want)
			}
		}
		for _, absent := range []string{"PodDisruptionBudget/kollect-control", "PodDisruptionBudget/kollect-nats"} {
			if slices.Contains(got, absent) {
				t.Errorf("%s blocks node drains of a single replica", absent)
			}
		}
	})
}

// TestTheCRDChartWorksAsADependency installs kollect-crds as the subchart of an umbrella chart
// that sets global values: its strict schema must accept them.
func TestTheCRDChartWorksAsADependency(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "charts", "kollect-crds"), os.DirFS(repoPath(t, "charts/kollect-crds"))); err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("Chart.yaml", "apiVersion: v2\nname: umbrella\nversion: 0.0.1\n")
	write("values.yaml", "global:\n  imageRegistry: registry.example.com\nkollect-crds:\n  keep: true\n")
	if n := len(decode(t, helm(t, "template", "umbrella", dir))); n == 0 {
		t.Error("the umbrella chart renders no CRD")
	}
}
