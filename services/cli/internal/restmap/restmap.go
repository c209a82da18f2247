package restmap

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// maxDocument bounds one discovery document read (the largest built-in
// group version's is about 30 KB).
const maxDocument = 8 << 20

// Mapper resolves kinds and resources of one API server. It is safe for
// concurrent use.
type Mapper struct {
	client *http.Client
	base   *url.URL

	mu     sync.Mutex
	lists  map[schema.GroupVersion]*metav1.APIResourceList
	groups []metav1.APIGroup // core first, then the server's order
}

// New returns a Mapper for the API server of cfg.
func New(cfg *rest.Config) (*Mapper, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	base, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, err
	}
	return &Mapper{client: hc, base: base, lists: map[schema.GroupVersion]*metav1.APIResourceList{}}, nil
}

// RESTMapping returns the resource serving gvk and its scope.
func (m *Mapper) RESTMapping(ctx context.Context, gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	list, err := m.resources(ctx, gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	for _, r := range list.APIResources {
		if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
			return mapping(gvk, r), nil
		}
	}
	return nil, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
}

// ResourceFor resolves a kubectl resource argument (a plural, singular or
// short name, or a Kind, optionally followed by .group or .version.group,
// as in deployments.apps) to the kind it names, looking in the preferred
// version of each group, the core group first.
func (m *Mapper) ResourceFor(ctx context.Context, arg string) (*meta.RESTMapping, error) {
	candidates, err := m.candidates(ctx, arg)
	if err != nil {
		return nil, err
	}
	for _, c := range candidates {
		list, err := m.resources(ctx, c.gv)
		if err != nil {
			if c.explicit {
				return nil, err
			}
			continue // a group version that fails discovery (an unavailable aggregated API) names nothing
		}
		for _, r := range list.APIResources {
			if !strings.Contains(r.Name, "/") && names(r, c.name) {
				return mapping(c.gv.WithKind(r.Kind), r), nil
			}
		}
	}
	return nil, fmt.Errorf("the server doesn't have a resource type %q", arg)
}

type candidate struct {
	gv       schema.GroupVersion
	name     string
	explicit bool // the argument named the version
}

// candidates lists where arg may live: RESOURCE.VERSION.GROUP first when
// that version exists, then RESOURCE.GROUP (GROUP is the group's name or
// its first labels: inventories.kollect), then every group for a bare name.
func (m *Mapper) candidates(ctx context.Context, arg string) ([]candidate, error) {
	groups, err := m.apiGroups(ctx)
	if err != nil {
		return nil, err
	}
	var out []candidate
	if gvr, _ := schema.ParseResourceArg(arg); gvr != nil {
		for _, g := range groups {
			for _, v := range g.Versions {
				if g.Name == gvr.Group && v.Version == gvr.Version {
					out = append(out, candidate{gv: schema.GroupVersion{Group: g.Name, Version: v.Version}, name: gvr.Resource, explicit: true})
				}
			}
		}
	}
	name, group, dotted := strings.Cut(arg, ".")
	for _, g := range groups {
		if dotted && g.Name != group && !strings.HasPrefix(g.Name, group+".") {
			continue
		}
		if v := g.PreferredVersion.Version; v != "" {
			out = append(out, candidate{gv: schema.GroupVersion{Group: g.Name, Version: v}, name: name})
		}
	}
	return out, nil
}

func names(r metav1.APIResource, name string) bool {
	if r.Name == name || r.SingularName == name || strings.EqualFold(r.Kind, name) {
		return true
	}
	for _, s := range r.ShortNames {
		if s == name {
			return true
		}
	}
	return false
}

func mapping(gvk schema.GroupVersionKind, r metav1.APIResource) *meta.RESTMapping {
	scope := meta.RESTScopeRoot
	if r.Namespaced {
		scope = meta.RESTScopeNamespace
	}
	return &meta.RESTMapping{Resource: gvk.GroupVersion().WithResource(r.Name), GroupVersionKind: gvk, Scope: scope}
}

// resources returns gv's discovery document, fetched once.
func (m *Mapper) resources(ctx context.Context, gv schema.GroupVersion) (*metav1.APIResourceList, error) {
	m.mu.Lock()
	list, ok := m.lists[gv]
	m.mu.Unlock()
	if ok {
		return list, nil
	}
	p := path.Join("/apis", gv.Group, gv.Version)
	if gv.Group == "" {
		p = path.Join("/api", gv.Version)
	}
	list = &metav1.APIResourceList{}
	if err := m.get(ctx, p, list); err != nil {
		return nil, fmt.Errorf("discover %s: %w", gv, err)
	}
	m.mu.Lock()
	m.lists[gv] = list
	m.mu.Unlock()
	return list, nil
}

// apiGroups returns the served groups, the core group first.
func (m *Mapper) apiGroups(ctx context.Context) ([]metav1.APIGroup, error) {
	m.mu.Lock()
	groups := m.groups
	m.mu.Unlock()
	if groups != nil {
		return groups, nil
	}
	var core metav1.APIVersions
	if err := m.get(ctx, "/api", &core); err != nil {
		return nil, fmt.Errorf("discover the core API: %w", err)
	}
	var list metav1.APIGroupList
	if err := m.get(ctx, "/apis", &list); err != nil {
		return nil, fmt.Errorf("discover API groups: %w", err)
	}
	if len(core.Versions) > 0 {
		g := metav1.APIGroup{PreferredVersion: metav1.GroupVersionForDiscovery{Version: core.Versions[0]}}
		for _, v := range core.Versions {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{Version: v})
		}
		groups = append(groups, g)
	}
	groups = append(groups, list.Groups...)
	m.mu.Lock()
	m.groups = groups
	m.mu.Unlock()
	return groups, nil
}

// get reads the JSON document at p into v.
func (m *Mapper) get(ctx context.Context, p string, v any) error {
	u := *m.base
	u.Path = path.Join(u.Path, p)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := m.client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var st metav1.Status
		if json.Unmarshal(body, &st) == nil && st.Message != "" {
			return fmt.Errorf("GET %s: %s: %s", p, resp.Status, st.Message)
		}
		return fmt.Errorf("GET %s: %s", p, resp.Status)
	}
	return json.Unmarshal(body, v)
}
