package loadtest

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"kollect.dev/kollect/loadtest/simsource"
)

func intstrPort(p int32) intstr.IntOrString { return intstr.FromInt32(p) }

// mutator changes and deletes load objects: through the API server, or in
// the simulated source.
type mutator interface {
	setSeq(ctx context.Context, o Object, value string) error
	delete(ctx context.Context, o Object) error
}

// kubeMutator creates, changes and deletes objects through the API server;
// dyn serves the Widgets (nil when there are none).
type kubeMutator struct {
	cs  kubernetes.Interface
	dyn dynamic.Interface
}

// widgetGVR is the Widgets' resource.
var widgetGVR = schema.GroupVersionResource{Group: simsource.WidgetGroup, Version: "v1", Resource: "widgets"}

func (m kubeMutator) setSeq(ctx context.Context, o Object, value string) error {
	if o.Kind != WidgetKind {
		return setSeq(ctx, m.cs, o, value)
	}
	patch, err := seqPatch(value)
	if err == nil {
		_, err = m.dyn.Resource(widgetGVR).Namespace(o.Namespace).Patch(ctx, o.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	}
	if err != nil {
		return fmt.Errorf("patch %s %s/%s: %w", o.Kind, o.Namespace, o.Name, err)
	}
	return nil
}

func (m kubeMutator) delete(ctx context.Context, o Object) error {
	if o.Kind != WidgetKind {
		return deleteObject(ctx, m.cs, o)
	}
	if err := m.dyn.Resource(widgetGVR).Namespace(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete %s %s/%s: %w", o.Kind, o.Namespace, o.Name, err)
	}
	return nil
}

// seqPatch is the merge patch setting SeqAnnotation to value.
func seqPatch(value string) ([]byte, error) {
	return json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{SeqAnnotation: value}}})
}

// simMutator changes objects of the simulated source.
type simMutator struct{ src *simsource.Source }

func (m simMutator) setSeq(_ context.Context, o Object, value string) error {
	_, err := m.src.SetSeq(o.Index, value)
	return err
}

func (m simMutator) delete(_ context.Context, o Object) error {
	_, err := m.src.Delete(o.Index)
	return err
}

// setSeq writes value into o's SeqAnnotation with a merge patch.
func setSeq(ctx context.Context, cs kubernetes.Interface, o Object, value string) error {
	patch, err := seqPatch(value)
	if err != nil {
		return err
	}
	if o.Kind == "ConfigMap" {
		_, err = cs.CoreV1().ConfigMaps(o.Namespace).Patch(ctx, o.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	} else {
		_, err = cs.AppsV1().Deployments(o.Namespace).Patch(ctx, o.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	}
	if err != nil {
		return fmt.Errorf("patch %s %s/%s: %w", o.Kind, o.Namespace, o.Name, err)
	}
	return nil
}

// deleteObject deletes o.
func deleteObject(ctx context.Context, cs kubernetes.Interface, o Object) error {
	var err error
	if o.Kind == "ConfigMap" {
		err = cs.CoreV1().ConfigMaps(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{})
	} else {
		err = cs.AppsV1().Deployments(o.Namespace).Delete(ctx, o.Name, metav1.DeleteOptions{})
	}
	if err != nil {
		return fmt.Errorf("delete %s %s/%s: %w", o.Kind, o.Namespace, o.Name, err)
	}
	return nil
}
