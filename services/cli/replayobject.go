package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"kollect.dev/kollect/services/cli/climain"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"kollect.dev/kollect/api/v1alpha1"
)

// replayResource is the KollectReplay resource.
var replayResource = schema.GroupVersionResource{Group: v1alpha1.Group, Version: "v1alpha1", Resource: "kollectreplays"}

// runReplayObject creates a KollectReplay for f and, with --wait, follows
// it until it finished.
func runReplayObject(ctx context.Context, s Streams, kube *kubeFlags, f replayFlags) error {
	if _, _, err := checkReplayFlags(f); err != nil {
		return err
	}
	obj, err := replayObject(f)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	dyn, err := kube.dynamic()
	if err != nil {
		return &climain.ExitError{Code: 2, Err: fmt.Errorf("replay: %w", err)}
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return &climain.ExitError{Code: 1, Err: err}
	}
	created, err := dyn.Resource(replayResource).Namespace(obj.Namespace).Create(ctx, &unstructured.Unstructured{Object: u}, metav1.CreateOptions{})
	if err != nil {
		return &climain.ExitError{Code: 1, Err: fmt.Errorf("replay: create KollectReplay: %w", err)}
	}
	fmt.Fprintf(s.Out, "kollectreplay %s/%s created\n", created.GetNamespace(), created.GetName())
	if !f.wait {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	return waitReplay(ctx, s, dyn.Resource(replayResource).Namespace(created.GetNamespace()), created.GetName())
}

// replayObject is the KollectReplay f asks for: in the inventory's
// namespace, or for a cluster inventory in the sink's.
func replayObject(f replayFlags) (*v1alpha1.KollectReplay, error) {
	inv := parseInventory(f.inventory)
	obj := &v1alpha1.KollectReplay{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "KollectReplay"},
		ObjectMeta: metav1.ObjectMeta{Namespace: inv.Namespace, Name: f.name},
		Spec:       v1alpha1.KollectReplaySpec{InventoryRef: v1alpha1.ReplayInventoryRef{Name: inv.Name}, Sink: f.sink},
	}
	if inv.Namespace == "" {
		parts := strings.Split(f.sink, "/")
		if len(parts) != 3 {
			return nil, fmt.Errorf("replay: --sink %q: a cluster inventory's binding is FAMILY/NAMESPACE/NAME", f.sink)
		}
		obj.Namespace, obj.Spec.InventoryRef.Kind = parts[1], "KollectClusterInventory"
	}
	if f.name == "" {
		obj.GenerateName = inv.Name + "-replay-"
	}
	if f.revision != 0 {
		obj.Spec.Revision = new(int64(min(f.revision, 1<<62)))
	}
	if f.at != "" {
		at, _ := time.Parse(time.RFC3339, f.at)
		obj.Spec.At = &metav1.Time{Time: at}
	}
	if f.backfill {
		obj.Spec.Backfill = &v1alpha1.ReplayRange{}
		if f.from != 0 {
			obj.Spec.Backfill.FromRevision = new(int64(min(f.from, 1<<62)))
		}
		if f.to != 0 {
			obj.Spec.Backfill.ToRevision = new(int64(min(f.to, 1<<62)))
		}
	}
	return obj, nil
}

// waitReplay polls the replay until its phase is Succeeded (nil) or Failed
// (exit 1), printing each change of progress.
func waitReplay(ctx context.Context, s Streams, c dynamic.ResourceInterface, name string) error {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	last := ""
	for {
		u, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return &climain.ExitError{Code: 1, Err: fmt.Errorf("replay: get KollectReplay %s: %w", name, err)}
		}
		var obj v1alpha1.KollectReplay
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &obj); err != nil {
			return &climain.ExitError{Code: 1, Err: err}
		}
		st := obj.Status
		line := fmt.Sprintf("%s: %d of %d revisions delivered", st.Phase, st.RevisionsDone, st.RevisionsTotal)
		if st.Phase != "" && line != last {
			fmt.Fprintln(s.Out, line)
			last = line
		}
		switch st.Phase {
		case v1alpha1.ReplaySucceeded:
			return nil
		case v1alpha1.ReplayFailed:
			return &climain.ExitError{Code: 1, Err: fmt.Errorf("replay %s failed: %s", name, replayFailure(&obj))}
		}
		select {
		case <-ctx.Done():
			return &climain.ExitError{Code: 1, Err: fmt.Errorf("replay: waiting for %s: %w", name, context.Cause(ctx))}
		case <-t.C:
		}
	}
}

// replayFailure is the Ready condition's reason and message, else lastError.
func replayFailure(obj *v1alpha1.KollectReplay) string {
	for _, c := range obj.Status.Conditions {
		if c.Type == v1alpha1.ConditionReady && c.Status == metav1.ConditionFalse {
			return c.Reason + ": " + c.Message
		}
	}
	if obj.Status.LastError != "" {
		return obj.Status.LastError
	}
	return "no reason given"
}
