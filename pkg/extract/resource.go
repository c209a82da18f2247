package extract

import (
	"maps"
)

// DefaultPrunedAnnotations are removed from the embedded copy when prune.defaults is on: they
// repeat the object or change without any change to it, and would make every export differ.
var DefaultPrunedAnnotations = []string{
	"kubectl.kubernetes.io/last-applied-configuration",
	"control-plane.alpha.kubernetes.io/leader",
	"autoscaling.alpha.kubernetes.io/conditions",
	"autoscaling.alpha.kubernetes.io/current-metrics",
	"endpoints.kubernetes.io/last-change-trigger-time",
}

// DefaultPrunedMetadata are the metadata fields prune.defaults removes. creationTimestamp is
// kept: it never changes and inventories use it for age.
var DefaultPrunedMetadata = []string{"managedFields", "resourceVersion", "generation", "selfLink"}

// identityMetadata is what dedupeIdentity removes: the row already carries it.
var identityMetadata = []string{"name", "namespace", "uid"}

// resourceExport builds the embedded copy of spec.export.mode Resource.
type resourceExport struct {
	as             string
	include        Include
	dedupe         bool
	defaults       bool
	pointers       [][]string
	paths          []*jsonPath
	secret         bool // the GVK is core v1 Secret
	keepSecretData bool // both opt-ins: annotation and include All
}

// The include modes, exactly (identity is apiVersion, kind and, when
// dedupeIdentity is false, metadata.name, namespace and uid):
//
//   - MetadataOnly: identity and the whole metadata (labels, annotations,
//     ownerReferences, finalizers, creationTimestamp, ... after pruning).
//   - SpecOnly: identity and every top-level field but metadata and status
//     (spec, or data, type, immutable, rules, ... for kinds without spec).
//   - StatusOnly: identity and status.
//   - SpecAndStatus: identity, the SpecOnly fields and status.
//   - All: every top-level field, the whole metadata included, and the only
//     mode under which an opted-in Secret's data is exported.
//
// In every mode Secret data and stringData are withheld unless both
// opt-ins are given, and redaction runs before the copy is built.

// metadata reports whether the mode embeds the whole metadata, not only
// the identity.
func (i Include) metadata() bool {
	return i == IncludeMetadataOnly || i == IncludeAll
}

func (i Include) spec() bool {
	return i == IncludeSpecOnly || i == IncludeSpecAndStatus || i == IncludeAll
}

func (i Include) status() bool {
	return i == IncludeStatusOnly || i == IncludeSpecAndStatus || i == IncludeAll
}

// build returns the embedded copy of view, the object's redacted view: the included
// sections, pruned metadata, Secret data withheld, pointers and paths removed. view is never
// modified.
func (r *resourceExport) build(view map[string]any) map[string]any {
	obj := view
	if r.secret && !r.keepSecretData {
		obj = hideSecretData(view)
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		switch k {
		case "apiVersion", "kind":
			out[k] = v
		case "metadata":
			if m, ok := v.(map[string]any); ok {
				pm := r.identity(m)
				if r.include.metadata() {
					pm = r.metadata(m)
				}
				if len(pm) > 0 {
					out[k] = pm
				}
			}
		case "status":
			if r.include.status() {
				out[k] = v
			}
		default:
			if r.include.spec() {
				out[k] = v
			}
		}
	}
	var v any = out
	for _, p := range r.pointers {
		v, _ = removePointer(v, p)
	}
	for _, p := range r.paths {
		v, _ = removeMatches(v, p.steps)
	}
	return v.(map[string]any)
}

// identity is the metadata of the modes that embed no metadata beyond the
// object's identity: nothing with dedupeIdentity, else name, namespace and
// uid.
func (r *resourceExport) identity(m map[string]any) map[string]any {
	if r.dedupe {
		return nil
	}
	out := map[string]any{}
	for _, k := range identityMetadata {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

func (r *resourceExport) metadata(m map[string]any) map[string]any {
	out := maps.Clone(m)
	if r.dedupe {
		for _, k := range identityMetadata {
			delete(out, k)
		}
	}
	if !r.defaults {
		return out
	}
	for _, k := range DefaultPrunedMetadata {
		delete(out, k)
	}
	if ann, ok := out["annotations"].(map[string]any); ok && !isMarker(ann) {
		kept := maps.Clone(ann)
		for _, k := range DefaultPrunedAnnotations {
			delete(kept, k)
		}
		if len(kept) == 0 {
			delete(out, "annotations")
		} else {
			out["annotations"] = kept
		}
	}
	return out
}
