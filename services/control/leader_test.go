package control_test

import (
	"context"
	"fmt"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/control"
)

// TestLeaderElectionFailover runs two control instances against their own
// API server and bus: the first leads, and when it stops the second takes
// over and keeps compiling config and folding status.
func TestLeaderElectionFailover(t *testing.T) {
	kube := testenv.StartKube(t)
	n := testenv.StartNATS(t)
	if err := bus.Provision(t.Context(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	kv, err := n.JS.KeyValue(t.Context(), bus.BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	start := func() (context.CancelFunc, <-chan error) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- control.Run(ctx, testConfig(kube.Config, n.URL, true)) }()
		return cancel, done
	}
	holder := func() (string, error) {
		var l coordinationv1.Lease
		if err := kube.Client.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: control.LeaderElectionID}, &l); err != nil {
			return "", err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
			return "", fmt.Errorf("lease has no holder")
		}
		return *l.Spec.HolderIdentity, nil
	}
	inventory := func(name string) {
		t.Helper()
		inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
		if err := kube.Client.Create(t.Context(), inv); err != nil {
			t.Fatal(err)
		}
		eventually(t, "entry of "+name, func() error {
			_, err := kv.Get(t.Context(), bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: "default", Name: name}))
			return err
		})
		eventually(t, "status of "+name, func() error {
			if err := kube.Client.Get(t.Context(), client.ObjectKeyFromObject(inv), inv); err != nil {
				return err
			}
			if inv.Status.ObservedGeneration != inv.Generation {
				return fmt.Errorf("observedGeneration %d", inv.Status.ObservedGeneration)
			}
			return nil
		})
	}

	stopA, doneA := start()
	var first string
	eventually(t, "first leader", func() (err error) { first, err = holder(); return err })
	inventory("before")
	stopB, doneB := start()
	//nolint:errcheck // waits for replica B to end; its error is not what this cleanup checks
	defer func() { stopB(); <-doneB }()
	stopA()
	if err := <-doneA; err != nil {
		t.Fatalf("first instance: %v", err)
	}
	eventually(t, "second instance leads", func() error {
		h, err := holder()
		if err != nil {
			return err
		}
		if h == first {
			return fmt.Errorf("holder is still %s", h)
		}
		return nil
	})
	inventory("after")
}
