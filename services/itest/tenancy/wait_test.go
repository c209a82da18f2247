package tenancy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// refusalWait bounds the wait for an attack's refusal. A fixed system
// refuses within seconds; today's code never does, and the guards usually
// see the leak well before this.
const refusalWait = 40 * time.Second

// waitRefused waits until the Kollect object kind ns/name ends as r says.
// Before each look, guard (when not nil) checks that the attack has not
// succeeded; a guard error fails the test at once.
func waitRefused(t *testing.T, kind, ns, name string, r refusal, guard func() error) {
	t.Helper()
	testenv.Eventually(t, refusalWait, fmt.Sprintf("%s %s/%s is refused", kind, ns, name), func() error {
		if guard != nil {
			if err := guard(); err != nil {
				t.Fatalf("%s %s/%s: the attack succeeded: %v", kind, ns, name, err)
			}
		}
		conds, err := conditionsOf(t.Context(), kind, ns, name)
		if err != nil {
			return err
		}
		return r.check(conds)
	}, testenv.Every(200*time.Millisecond))
	if guard != nil {
		if err := guard(); err != nil {
			t.Fatalf("%s %s/%s: refused, but the attack succeeded: %v", kind, ns, name, err)
		}
	}
}

// conditionsOf reads status.conditions of the Kollect object kind ns/name.
func conditionsOf(ctx context.Context, kind, ns, name string) ([]metav1.Condition, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: v1alpha1.GroupVersion.Group, Version: v1alpha1.GroupVersion.Version, Kind: kind})
	if err := suite.admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		return nil, err
	}
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	data, _ := json.Marshal(raw)
	var conds []metav1.Condition
	if err := json.Unmarshal(data, &conds); err != nil {
		return nil, fmt.Errorf("decode conditions of %s %s/%s: %w", kind, ns, name, err)
	}
	return conds, nil
}

// manifests decodes a multi-document YAML text after replacing each "$key"
// of vars (keys must not be prefixes of one another).
func manifests(t *testing.T, text string, vars ...string) []*unstructured.Unstructured {
	t.Helper()
	text = strings.NewReplacer(vars...).Replace(text)
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(text), 4096)
	var objs []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("decode YAML: %v\n%s", err, text)
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
}

// apply creates every object of the YAML text with c, failing the test on
// the first error.
func apply(t *testing.T, c client.Client, text string, vars ...string) {
	t.Helper()
	for _, u := range manifests(t, text, vars...) {
		if err := c.Create(t.Context(), u); err != nil {
			t.Fatalf("create %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
}

// tryApply creates the one object of the YAML text with c and returns the
// API server's answer.
func tryApply(t *testing.T, c client.Client, text string, vars ...string) error {
	t.Helper()
	objs := manifests(t, text, vars...)
	if len(objs) != 1 {
		t.Fatalf("tryApply takes one object, got %d", len(objs))
	}
	return c.Create(t.Context(), objs[0])
}

// denied fails the test unless err is an admission denial by the webhook
// whose message matches mentions.
func denied(t *testing.T, err error, mentions *regexp.Regexp) {
	t.Helper()
	switch {
	case err == nil:
		t.Fatalf("admitted; want a denial by the webhook mentioning %q", mentions)
	case !strings.Contains(err.Error(), "denied the request"):
		t.Fatalf("error %q is not a webhook denial", err)
	case !mentions.MatchString(err.Error()):
		t.Fatalf("denial %q does not mention %q", err, mentions)
	}
}
