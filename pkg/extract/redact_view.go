package extract

import "maps"

// secretDataKeys are the parts of a Secret that hold or repeat its data.
var secretDataKeys = []string{"data", "stringData"}

// viewer builds the redacted view of an object that attribute paths, CEL and the embedded copy
// evaluate on, so that no way of selecting a value (index, filter, CEL function) can reach a
// redacted one. It walks only the paths the Profile reads.
type viewer struct {
	rules *Rules
	guide *guide // nil: the whole object
	// secret hides Secret data, stringData and metadata.annotations: always (a Secret
	// without the opt-ins), or only when the object says it is a core v1 Secret (a
	// Predicate, which knows no GVK).
	secret     bool
	secretKind bool
}

func newViewer(rules *Rules, fs *FieldSet) *viewer {
	return &viewer{rules: rules, guide: newGuide(fs)}
}

// apply returns the redacted view of obj; obj itself when nothing it reads is sensitive.
func (v *viewer) apply(obj map[string]any) map[string]any {
	if v.secret || (v.secretKind && objectIsSecret(obj)) {
		obj = hideSecretData(obj)
	}
	out, _ := v.rules.walkMap(obj, v.guide)
	return out
}

func objectIsSecret(obj map[string]any) bool {
	kind, _ := obj["kind"].(string)
	apiVersion, _ := obj["apiVersion"].(string)
	return kind == "Secret" && apiVersion == "v1"
}

// hideSecretData replaces a Secret's data, stringData and metadata.annotations (which can
// repeat the data: last-applied) by the secret-data marker, copying what changes.
func hideSecretData(obj map[string]any) map[string]any {
	var out map[string]any
	set := func(k string, v any) {
		if out == nil {
			out = maps.Clone(obj)
		}
		out[k] = v
	}
	for _, k := range secretDataKeys {
		if v, ok := obj[k]; ok && v != nil && !isMarker(v) {
			set(k, Redacted(ReasonSecretData))
		}
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if a, ok := md["annotations"]; ok && a != nil && !isMarker(a) {
			nm := maps.Clone(md)
			nm["annotations"] = Redacted(ReasonSecretData)
			set("metadata", nm)
		}
	}
	if out == nil {
		return obj
	}
	return out
}
