package tree

import (
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// ResourceAttribute is the attribute a full-resource export is recognised
// by in manifest content: the default export.as of a Profile.
const ResourceAttribute = "resource"

// content returns what the file or entry of r holds.
func (s Spec) content(r *busv1.Row) any {
	switch s.Content {
	case ContentAttributes:
		if r.Attributes == nil {
			return map[string]any{}
		}
		return r.Attributes
	case ContentManifest:
		return Manifest(r)
	}
	return r
}

// Manifest returns r as a Kubernetes-manifest-shaped object. A row holding
// a full-resource export (an object in attributes["resource"]) becomes that
// object with apiVersion, kind and metadata name, namespace and uid
// restored; the other attributes are left out. Any other row becomes
// {apiVersion, kind, metadata{name, namespace, uid}, attributes}.
func Manifest(r *busv1.Row) map[string]any {
	apiVersion := r.Version
	if r.Group != "" {
		apiVersion = r.Group + "/" + r.Version
	}
	meta := map[string]any{"name": r.Name, "uid": r.UID}
	if r.Namespace != "" {
		meta["namespace"] = r.Namespace
	}
	if res, ok := r.Attributes[ResourceAttribute].(map[string]any); ok {
		m := make(map[string]any, len(res)+2)
		for k, v := range res {
			m[k] = v
		}
		if orig, ok := res["metadata"].(map[string]any); ok {
			merged := make(map[string]any, len(orig)+3)
			for k, v := range orig {
				merged[k] = v
			}
			for k, v := range meta {
				merged[k] = v
			}
			meta = merged
		}
		m["apiVersion"], m["kind"], m["metadata"] = apiVersion, r.Kind, meta
		return m
	}
	attrs := r.Attributes
	if attrs == nil {
		attrs = map[string]any{}
	}
	return map[string]any{"apiVersion": apiVersion, "kind": r.Kind, "metadata": meta, "attributes": attrs}
}
