package simsource

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// served is one served resource: a generated kind (kind >= 0, index in
// Kinds) or a fixed one (the namespaces and the Widget CRD).
type served struct {
	Kind
	kind       int // -1 for fixed resources
	namespaced bool
}

var (
	namespacesKind = Kind{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Kind: "Namespace", Builtin: true}
	crdsKind       = Kind{GVR: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
		Kind: "CustomResourceDefinition"}
)

// resources are every resource resource.
func resources() []served {
	out := []served{{Kind: namespacesKind, kind: -1}, {Kind: crdsKind, kind: -1}}
	for i, k := range Kinds {
		out = append(out, served{Kind: k, kind: i, namespaced: true})
	}
	return out
}

// fixed returns the objects of a fixed resource.
func (s *Source) fixed(r served) []runtime.Object {
	if r.GVR.Resource == "namespaces" {
		out := make([]runtime.Object, s.opts.Namespaces)
		for i := range out {
			name := NamespaceName(i)
			out[i] = &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
				ObjectMeta: metav1.ObjectMeta{Name: name, UID: UID(-1 - i), ResourceVersion: "1",
					CreationTimestamp: metav1.NewTime(s.created), Labels: map[string]string{TierLabel: s.opts.Tier,
						"kubernetes.io/metadata.name": name}},
				Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
		}
		return out
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"spec": map[string]any{"group": WidgetGroup, "scope": "Namespaced",
			"names":    map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true}}},
	}}
	crd.SetName("widgets." + WidgetGroup)
	crd.SetUID("5170ce00-0000-4000-8000-c0000000c0de")
	crd.SetResourceVersion("1")
	crd.SetCreationTimestamp(metav1.NewTime(s.created))
	return []runtime.Object{crd}
}

// Handler serves the Kubernetes API of s.
func (s *Source) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.0-simsource", Platform: "linux/amd64"})
	})
	mux.HandleFunc("GET /api", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}})
	})
	mux.HandleFunc("GET /apis", func(w http.ResponseWriter, _ *http.Request) {
		l := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
		seen := map[string]bool{}
		for _, r := range resources() {
			if g := r.GVR.Group; g != "" && !seen[g] {
				seen[g] = true
				gv := metav1.GroupVersionForDiscovery{GroupVersion: r.GVR.GroupVersion().String(), Version: r.GVR.Version}
				l.Groups = append(l.Groups, metav1.APIGroup{Name: g, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv})
			}
		}
		writeJSON(w, http.StatusOK, l)
	})
	mux.HandleFunc("GET /api/v1", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, resourceList(schema.GroupVersion{Version: "v1"}))
	})
	mux.HandleFunc("GET /apis/{group}/{version}", func(w http.ResponseWriter, r *http.Request) {
		gv := schema.GroupVersion{Group: r.PathValue("group"), Version: r.PathValue("version")}
		l := resourceList(gv)
		if len(l.APIResources) == 0 {
			writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no group version "+gv.String())
			return
		}
		writeJSON(w, http.StatusOK, l)
	})
	mux.HandleFunc("GET /api/v1/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		s.serveResource(w, r, schema.GroupVersion{Version: "v1"}, r.PathValue("rest"))
	})
	mux.HandleFunc("GET /apis/{group}/{version}/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		s.serveResource(w, r, schema.GroupVersion{Group: r.PathValue("group"), Version: r.PathValue("version")}, r.PathValue("rest"))
	})
	return mux
}

// resourceList is the discovery document of gv.
func resourceList(gv schema.GroupVersion) metav1.APIResourceList {
	l := metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv.String()}
	for _, r := range resources() {
		if r.GVR.GroupVersion() == gv {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: r.GVR.Resource, SingularName: strings.ToLower(r.Kind.Kind),
				Namespaced: r.namespaced || r.kind >= 0, Kind: r.Kind.Kind, Verbs: metav1.Verbs{"get", "list", "watch"}})
		}
	}
	return l
}

// serveResource serves GET, LIST and WATCH of the resource path rest
// (resource[/name] or namespaces/<ns>/resource[/name]) in gv.
func (s *Source) serveResource(w http.ResponseWriter, r *http.Request, gv schema.GroupVersion, rest string) {
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	ns := ""
	if len(parts) >= 3 && parts[0] == "namespaces" {
		ns, parts = parts[1], parts[2:]
	}
	var res *served
	for _, c := range resources() {
		if c.GVR.GroupVersion() == gv && c.GVR.Resource == parts[0] {
			res = &c
			break
		}
	}
	if res == nil || len(parts) > 2 || (ns != "" && res.kind < 0) {
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
		return
	}
	q := r.URL.Query()
	f := filter{kind: res.kind, namespace: ns}
	var err error
	if f.labels, err = parseLabels(q.Get("labelSelector")); err == nil {
		f.fields, err = parseFields(q.Get("fieldSelector"))
	}
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return
	}
	enc := negotiate(r, res.Builtin)
	if enc == asProtobuf {
		s.protobufResponses.Add(1)
	}
	switch {
	case len(parts) == 2:
		s.serveGet(w, enc, *res, ns, parts[1])
	case q.Get("watch") == "true" || q.Get("watch") == "1":
		s.serveWatch(w, r, enc, *res, f)
	default:
		s.serveList(w, r, enc, *res, f)
	}
}

// serveGet serves one object.
func (s *Source) serveGet(w http.ResponseWriter, enc encoding, res served, ns, name string) {
	if res.kind < 0 {
		for _, o := range s.fixed(res) {
			if m, err := accessor(o); err == nil && m.GetName() == name {
				enc.writeObject(w, o)
				return
			}
		}
	} else if i, ok := indexOf(res.Kind, name); ok && s.namespaceOf(i) == ns {
		if o, ok := s.Object(i); ok {
			enc.writeObject(w, o)
			return
		}
	}
	writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, res.GVR.Resource+" \""+name+"\" not found")
}

// serveList serves one page of a LIST: limit objects from the position
// the continue token names.
func (s *Source) serveList(w http.ResponseWriter, r *http.Request, enc encoding, res served, f filter) {
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	lm := metav1.ListMeta{}
	if res.kind < 0 {
		lm.ResourceVersion = strconv.FormatUint(s.ResourceVersion(), 10)
		var items []runtime.Object
		for _, o := range s.fixed(res) {
			if m, err := accessor(o); err == nil && (f.labels == nil || f.labels.Matches(labelSet(m.GetLabels()))) {
				items = append(items, o)
			}
		}
		enc.writeList(w, res.Kind, items, lm)
		return
	}
	j, rv := 0, s.ResourceVersion()
	if c := q.Get("continue"); c != "" {
		var ok bool
		if j, rv, ok = parseContinue(c); !ok {
			writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "invalid continue token")
			return
		}
	}
	items, next, done := s.page(f, j, max(limit, 0))
	lm.ResourceVersion = strconv.FormatUint(rv, 10)
	if !done {
		lm.Continue = strconv.Itoa(next) + "." + strconv.FormatUint(rv, 10)
	}
	enc.writeList(w, res.Kind, items, lm)
}

func parseContinue(c string) (int, uint64, bool) {
	a, b, ok := strings.Cut(c, ".")
	j, err1 := strconv.Atoi(a)
	rv, err2 := strconv.ParseUint(b, 10, 64)
	return j, rv, ok && err1 == nil && err2 == nil && j >= 0
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	writeJSON(w, code, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Message: msg, Reason: reason, Code: int32(code)}) //nolint:gosec // G115: an HTTP status code
}
