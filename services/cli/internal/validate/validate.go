package validate

import (
	"context"
	"fmt"
	"sort"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/services/cli/internal/manifests"
	"kollect.dev/kollect/services/cli/internal/schema"
)

// Finding is one problem, naming the file, the object and the field.
type Finding struct {
	Source  string
	Object  string
	Message string
	// Warning findings do not make the folder invalid.
	Warning bool
}

func (f Finding) String() string {
	level := "error"
	if f.Warning {
		level = "warning"
	}
	return fmt.Sprintf("%s: %s: %s: %s", f.Source, level, f.Object, f.Message)
}

// Folder checks every kollect.dev object of objs. Objects of other groups are
// ignored. The returned findings are sorted by source.
func Folder(ctx context.Context, objs []manifests.Object, opts extract.Options) ([]Finding, error) {
	v, err := schema.New()
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, o := range objs {
		gvk := o.Object.GroupVersionKind()
		if gvk.Group != v1alpha1.GroupVersion.Group {
			continue
		}
		name := gvk.Kind + " " + ref(o.Object.GetNamespace(), o.Object.GetName())
		for _, e := range v.Validate(ctx, o.Object) {
			out = append(out, Finding{Source: o.Source(), Object: name, Message: e.Error()})
		}
	}
	if len(out) > 0 { // typed decoding needs schema-valid objects
		return sorted(out), nil
	}
	set, err := manifests.Sort(objs)
	if err != nil {
		return []Finding{{Source: "-", Object: "-", Message: err.Error()}}, nil //nolint:nilerr // an unorderable set is a finding, reported like the others
	}
	out = append(out, semantic(set, opts)...)
	return sorted(out), nil
}

func semantic(set *manifests.Set, opts extract.Options) []Finding {
	var out []Finding
	for _, t := range set.Kollect {
		out = append(out, check(set, t, opts)...)
	}
	return out
}

func check(set *manifests.Set, t manifests.Typed, opts extract.Options) []Finding {
	f := func(msg string, warn bool) Finding {
		return Finding{Source: t.Source(), Object: t.Object.Object.GetKind() + " " + ref(t.Object.Object.GetNamespace(), t.Object.Object.GetName()), Message: msg, Warning: warn}
	}
	var out []Finding
	switch obj := t.Typed.(type) {
	case *v1alpha1.KollectProfile:
		if _, errs := extract.CompileProfile(obj, opts); len(errs) > 0 {
			for _, e := range errs {
				out = append(out, f(e.Error(), false))
			}
		}
	case *v1alpha1.KollectTarget:
		out = append(out, targetRefs(set, obj.Namespace, obj.Spec.ProfileRef.Name, f)...)
		if p := set.Profile(obj.Namespace, obj.Spec.ProfileRef.Name); p != nil {
			_, errs := selection.Compile(selection.ForTarget(obj, gvkOf(p)))
			for _, e := range errs {
				out = append(out, f(e.Error(), false))
			}
		}
	case *v1alpha1.KollectClusterTarget:
		out = append(out, targetRefs(set, obj.Spec.ProfileRef.Namespace, obj.Spec.ProfileRef.Name, f)...)
		if p := set.Profile(obj.Spec.ProfileRef.Namespace, obj.Spec.ProfileRef.Name); p != nil {
			_, errs := selection.Compile(selection.ForClusterTarget(obj, gvkOf(p)))
			for _, e := range errs {
				out = append(out, f(e.Error(), false))
			}
		}
	}
	return out
}

func targetRefs(set *manifests.Set, ns, name string, f func(string, bool) Finding) []Finding {
	if set.Profile(ns, name) == nil {
		return []Finding{f(fmt.Sprintf("spec.profileRef: KollectProfile %s is not in this folder (it must exist in the cluster)", ref(ns, name)), true)}
	}
	return nil
}

func sorted(f []Finding) []Finding {
	sort.SliceStable(f, func(i, j int) bool { return f[i].Source < f[j].Source })
	return f
}

func ref(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
