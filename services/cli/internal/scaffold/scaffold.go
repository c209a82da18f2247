package scaffold

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"text/template"
)

// GVK is a kind with its API group and version.
type GVK struct{ Group, Version, Kind, Resource string }

// known maps the resource names people type (deployments.apps, deploy) to
// their kinds, so init works offline for the common built-in kinds.
var known = map[string]GVK{}

func init() {
	for _, g := range []struct {
		gvk     GVK
		aliases []string
	}{
		{GVK{"apps", "v1", "Deployment", "deployments"}, []string{"deployment", "deploy"}},
		{GVK{"apps", "v1", "StatefulSet", "statefulsets"}, []string{"statefulset", "sts"}},
		{GVK{"apps", "v1", "DaemonSet", "daemonsets"}, []string{"daemonset", "ds"}},
		{GVK{"apps", "v1", "ReplicaSet", "replicasets"}, []string{"replicaset", "rs"}},
		{GVK{"batch", "v1", "CronJob", "cronjobs"}, []string{"cronjob", "cj"}},
		{GVK{"batch", "v1", "Job", "jobs"}, []string{"job"}},
		{GVK{"", "v1", "Pod", "pods"}, []string{"pod", "po"}},
		{GVK{"", "v1", "Service", "services"}, []string{"service", "svc"}},
		{GVK{"", "v1", "ConfigMap", "configmaps"}, []string{"configmap", "cm"}},
		{GVK{"networking.k8s.io", "v1", "Ingress", "ingresses"}, []string{"ingress", "ing"}},
	} {
		full := g.gvk.Resource
		if g.gvk.Group != "" {
			full += "." + g.gvk.Group
		}
		for _, a := range append(g.aliases, full, g.gvk.Resource) {
			known[a] = g.gvk
		}
	}
}

// ParseKind reads a kind as a resource name (deployments.apps, deploy) of a
// common built-in kind, or as Kind.version.group (Certificate.v1.cert-manager.io,
// ConfigMap.v1) for any other.
func ParseKind(s string) (GVK, error) {
	if g, ok := known[strings.ToLower(s)]; ok {
		return g, nil
	}
	kind, rest, _ := strings.Cut(s, ".")
	version, group, _ := strings.Cut(rest, ".")
	if kind == "" || version == "" || kind[0] < 'A' || kind[0] > 'Z' || !regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`).MatchString(version) {
		return GVK{}, fmt.Errorf("--kind %q: want a built-in resource (%s) or Kind.version.group, e.g. Certificate.v1.cert-manager.io", s, strings.Join(knownNames(), ", "))
	}
	return GVK{Group: group, Version: version, Kind: kind}, nil
}

func knownNames() []string {
	var out []string
	for n, g := range known {
		if g.Group == "" && n == g.Resource || g.Group != "" && n == g.Resource+"."+g.Group {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Attribute is one extracted value.
type Attribute struct{ Name, Path, Type string }

// DefaultAttributes are what init extracts when no --attr is given: the
// images of kinds that run containers, the labels of any other.
func DefaultAttributes(g GVK) []Attribute {
	switch g.Kind {
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job":
		return []Attribute{{"images", "$.spec.template.spec.containers[*].image", "list"}}
	case "CronJob":
		return []Attribute{{"images", "$.spec.jobTemplate.spec.template.spec.containers[*].image", "list"}}
	case "Pod":
		return []Attribute{{"images", "$.spec.containers[*].image", "list"}}
	}
	return []Attribute{{"labels", "$.metadata.labels", "map"}}
}

// Sink is a sink named on the command line: git=URL or postgres=SECRET.
type Sink struct{ Type, Value string }

// ParseSink reads TYPE=VALUE.
func ParseSink(s string) (Sink, error) {
	t, v, ok := strings.Cut(s, "=")
	if !ok || v == "" || (t != "git" && t != "postgres") {
		return Sink{}, fmt.Errorf("--sink %q: want git=HTTPS_URL or postgres=SECRET_NAME (a Secret with key dsn)", s)
	}
	return Sink{Type: t, Value: v}, nil
}

// Spec is what init scaffolds.
type Spec struct {
	// Namespace holds every object and is the one namespace collected.
	Namespace string
	// Name names the Profile, Target and Inventory.
	Name       string
	Kind       GVK
	Attributes []Attribute
	Sinks      []Sink
}

// Table is the PostgreSQL table of the database sink: the name with '-' as '_'.
func (s Spec) Table() string { return strings.ReplaceAll(s.Name, "-", "_") }

// File is one file of the scaffold.
type File struct{ Name, Body string }

// Render returns the scaffold's files, in apply order.
func Render(s Spec) ([]File, error) {
	if s.Namespace == "" || s.Name == "" {
		return nil, fmt.Errorf("a namespace and a name are required")
	}
	if len(s.Sinks) == 0 {
		return nil, fmt.Errorf("name at least one --sink")
	}
	seen := map[string]bool{}
	for _, k := range s.Sinks {
		if seen[k.Type] {
			return nil, fmt.Errorf("--sink: %s named twice; init scaffolds one sink of each type", k.Type)
		}
		seen[k.Type] = true
	}
	var files []File
	for _, part := range []struct{ name, tmpl string }{
		{"10-profile.yaml", profileTmpl}, {"20-target.yaml", targetTmpl}, {"30-sinks.yaml", sinksTmpl}, {"40-inventory.yaml", inventoryTmpl},
	} {
		var b bytes.Buffer
		if err := template.Must(template.New(part.name).Parse(part.tmpl)).Execute(&b, s); err != nil {
			return nil, err
		}
		files = append(files, File{Name: part.name, Body: b.String()})
	}
	return files, nil
}

const profileTmpl = `# What to extract from each {{.Kind.Kind}} (kollect init; docs/reference/ lists every field).
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata:
  name: {{.Name}}
  namespace: {{.Namespace}}
spec:
  targetGVK:
    group: "{{.Kind.Group}}"
    version: {{.Kind.Version}}
    kind: {{.Kind.Kind}}
  attributes:
{{- range .Attributes}}
  - name: {{.Name}}
    path: '{{.Path}}'
{{- if .Type}}
    type: {{.Type}}
{{- end}}
{{- end}}
`

const targetTmpl = `# Which objects: the {{.Kind.Kind}} objects of namespace {{.Namespace}}. A Target collects what its
# ServiceAccount ({{.Namespace}}/kollect) may list, so the Role grants exactly that.
{{- if .Kind.Resource}}
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: kollect-read-{{.Name}}
  namespace: {{.Namespace}}
rules:
- apiGroups: ["{{.Kind.Group}}"]
  resources: [{{.Kind.Resource}}]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: kollect-read-{{.Name}}
  namespace: {{.Namespace}}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: kollect-read-{{.Name}}
subjects:
- kind: ServiceAccount
  name: kollect
  namespace: {{.Namespace}}
---
{{- else}}
# Grant {{.Namespace}}/kollect get, list and watch on this kind (its resource name is not known offline).
{{- end}}
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata:
  name: {{.Name}}
  namespace: {{.Namespace}}
spec:
  profileRef:
    name: {{.Name}}
  includedNamespaces: [{{.Namespace}}]
`

const sinksTmpl = `# Where it goes (docs/sinks/ describes every option).
{{- $ns := .Namespace}}{{$name := .Name}}
{{- range $i, $s := .Sinks}}
{{- if $i}}
---
{{- end}}
{{- if eq $s.Type "git"}}
# The token comes from the Secret git-token (key token):
#   kubectl -n {{$ns}} create secret generic git-token --from-literal=token=...
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata:
  name: {{$name}}-git
  namespace: {{$ns}}
spec:
  type: git
  endpoint: {{$s.Value}}
  secretRef:
    name: git-token
  layout:
    mode: perResource
{{- else}}
# The connection string comes from the Secret {{$s.Value}} (key dsn):
#   kubectl -n {{$ns}} create secret generic {{$s.Value}} --from-literal=dsn=postgres://...
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata:
  name: {{$name}}-db
  namespace: {{$ns}}
spec:
  type: postgres
  secretRef:
    name: {{$s.Value}}
  postgres:
    table: {{$.Table}}
{{- end}}
{{- end}}
`

const inventoryTmpl = `# The inventory: every row of the Targets in {{.Namespace}}, exported to the sinks.
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata:
  name: {{.Name}}
  namespace: {{.Namespace}}
spec:
{{- $git := false}}{{$db := false}}
{{- range .Sinks}}{{if eq .Type "git"}}{{$git = true}}{{else}}{{$db = true}}{{end}}{{end}}
{{- if $git}}
  snapshotSinkRefs: [{{.Name}}-git]
{{- end}}
{{- if $db}}
  databaseSinkRefs: [{{.Name}}-db]
{{- end}}
`
