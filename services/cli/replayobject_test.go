package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

func TestReplayCreatesAKollectReplayAndWaitsForItsPhase(t *testing.T) {
	k := testenv.StartKube(t)
	kcfg := kubeconfig(t, k)
	ctx := context.Background()
	ns := "replay-cli"
	namespace(ctx, t, k.Client, ns, nil)
	t.Run("a backfill range becomes the spec", func(t *testing.T) {
		code, stdout, stderr := run(t, "replay", "--kubeconfig", kcfg, "--inventory", ns+"/apps", "--sink", "database/pg",
			"--backfill", "--from", "3", "--name", "fill")
		if code != 0 || stdout != "kollectreplay "+ns+"/fill created\n" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		var got v1alpha1.KollectReplay
		if err := k.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "fill"}, &got); err != nil {
			t.Fatal(err)
		}
		from := int64(3)
		want := v1alpha1.KollectReplaySpec{InventoryRef: v1alpha1.ReplayInventoryRef{Kind: "KollectInventory", Name: "apps"},
			Sink: "database/pg", Backfill: &v1alpha1.ReplayRange{FromRevision: &from}}
		if d := cmp.Diff(want, got.Spec); d != "" {
			t.Errorf("spec (-want +got):\n%s", d)
		}
	})
	for _, tc := range []struct {
		name  string
		phase v1alpha1.ReplayPhase
		code  int
		out   string
	}{
		{"--wait exits 0 once the replay succeeded", v1alpha1.ReplaySucceeded, 0, "Succeeded: 2 of 2 revisions delivered"},
		{"--wait exits 1 with the reason once the replay failed", v1alpha1.ReplayFailed, 1, "Failed: 2 of 2 revisions delivered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.ToLower(string(tc.phase))
			done := make(chan struct{})
			go func() {
				defer close(done)
				finishReplay(t, k.Client, ns, name, tc.phase)
			}()
			code, stdout, stderr := run(t, "replay", "--kubeconfig", kcfg, "--inventory", ns+"/apps", "--sink", "database/pg",
				"--revision", "2", "--name", name, "--wait", "--timeout", "1m")
			<-done
			if code != tc.code || !strings.Contains(stdout, tc.out) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout, stderr, tc.code, tc.out)
			}
			if tc.phase == v1alpha1.ReplayFailed && !strings.Contains(stderr, "ReplayFailed: revision 2 was not acknowledged") {
				t.Errorf("stderr %q does not give the reason", stderr)
			}
		})
	}
}

// finishReplay waits for the replay to exist and sets its status to phase,
// as control would.
func finishReplay(t *testing.T, c client.Client, ns, name string, phase v1alpha1.ReplayPhase) {
	var obj v1alpha1.KollectReplay
	// This runs beside the command under test: it reports with t.Errorf.
	if testenv.Poll(context.Background(), 30*time.Second, func() error {
		return c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &obj)
	}, testenv.Every(10*time.Millisecond)) != nil {
		t.Errorf("replay %s never created", name)
		return
	}
	obj.Status = v1alpha1.KollectReplayStatus{Phase: phase, RevisionsDone: 2, RevisionsTotal: 2}
	if phase == v1alpha1.ReplayFailed {
		obj.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: "ReplayFailed",
			Message: "revision 2 was not acknowledged by database/pg", LastTransitionTime: metav1.Now()}}
	}
	if err := c.Status().Update(context.Background(), &obj); err != nil {
		t.Errorf("update status: %v", err)
	}
}
