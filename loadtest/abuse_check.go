package loadtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
)

// kollectObject reads a kollect.dev object of the flooding tenant.
func (r *abuseRun) kollectObject(ctx context.Context, kind, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "kollect.dev", Version: "v1alpha1", Kind: kind})
	err := r.kube.Client.Get(ctx, client.ObjectKey{Namespace: AbuserNamespace, Name: name}, u)
	return u, err
}

// reasons returns the reasons of an object's conditions.
func reasons(u *unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	cs, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range cs {
		if m, ok := c.(map[string]any); ok {
			if reason, ok := m["reason"].(string); ok {
				out[reason] = true
			}
		}
	}
	return out
}

// readyMessage returns the message of an object's Ready condition.
func readyMessage(u *unstructured.Unstructured) string {
	cs, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range cs {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			msg, _ := m["message"].(string)
			return msg
		}
	}
	return ""
}

// checkStatus checks that every limit the flooding tenant ran into is in its
// inventories' status (the webhook is off: reconcile must say it).
func (r *abuseRun) checkStatus(ctx context.Context) {
	for i := range r.c.Inventories {
		name := "flood-" + strconv.Itoa(i)
		err := testenv.Poll(ctx, time.Minute, func() error {
			u, err := r.kollectObject(ctx, "KollectInventory", name)
			if err != nil {
				return err
			}
			if got := reasons(u); !got[v1alpha1.ReasonScopeIntervalRaised] {
				return fmt.Errorf("conditions' reasons %v lack %s", got, v1alpha1.ReasonScopeIntervalRaised)
			}
			if msg := readyMessage(u); !strings.Contains(msg, "spec.history.revisions: 1000 is above the cap 100") ||
				!strings.Contains(msg, "--min-export-interval") {
				return fmt.Errorf("the Ready condition's message %q does not name the interval raised and the history capped", msg)
			}
			return nil
		})
		if err != nil {
			r.rep.fail("inventory %s: the limits it ran into are not in its status: %v", name, err)
		}
	}
}

// replayEvents counts the replayed events on the flooding tenant's subjects.
func (r *abuseRun) replayEvents(ctx context.Context) (int, error) {
	n := 0
	for i := range r.c.Inventories {
		idx, err := history.Index(ctx, r.js, busv1.NamespacedName{Namespace: AbuserNamespace, Name: "flood-" + strconv.Itoa(i)})
		if err != nil {
			return 0, err
		}
		for _, e := range idx {
			if e.Replay {
				n++
			}
		}
	}
	return n, nil
}

// checkReplaysRunOnce waits for every replay to finish, drops their status
// reports from the bus (as their 7-day expiry would), restarts the
// aggregator and checks that none runs again: no request is left on the
// bus, no replayed event is added and every phase stays.
func (r *abuseRun) checkReplaysRunOnce(ctx context.Context) error {
	phases := map[string]string{}
	err := testenv.Poll(ctx, 3*time.Minute, func() error {
		for i := range r.c.Replays {
			name := "replay-" + strconv.Itoa(i)
			u, err := r.kollectObject(ctx, "KollectReplay", name)
			if err != nil {
				return err
			}
			phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
			if phase != "Succeeded" && phase != "Failed" {
				return fmt.Errorf("replay %s is %q", name, phase)
			}
			phases[name] = phase
		}
		return nil
	}, testenv.Every(200*time.Millisecond))
	if err != nil {
		r.rep.fail("the replays did not finish: %v", err)
		return nil
	}
	for name, phase := range phases {
		if phase != "Succeeded" {
			r.rep.fail("replay %s %s", name, phase)
		}
	}
	cfg, err := r.js.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		return err
	}
	status, err := r.js.Stream(ctx, bus.StreamStatus)
	if err != nil {
		return err
	}
	for name := range phases {
		if err := testenv.Poll(ctx, time.Minute, func() error {
			if _, err := cfg.Get(ctx, bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindReplay, Namespace: AbuserNamespace, Name: name})); err == nil {
				return fmt.Errorf("the request of finished replay %s is still on the bus", name)
			}
			return nil
		}); err != nil {
			r.rep.fail("%v", err)
		}
		subject := bus.StatusSubjectFor(busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay,
			Namespace: AbuserNamespace, Name: name})
		if err := status.Purge(ctx, jetstream.WithPurgeSubject(subject)); err != nil {
			return err
		}
	}
	if r.rep.ReplayEventsAtRestart, err = r.replayEvents(ctx); err != nil {
		return err
	}
	r.logf("restarting the aggregator with %d replayed events on the bus and the replays' reports gone", r.rep.ReplayEventsAtRestart)
	r.sup.kill("aggregator-a")
	if err := r.sup.start("aggregator-a", ""); err != nil {
		return err
	}
	if _, err := r.steadyLatency(ctx, "after-restart", 2*time.Minute); err != nil {
		r.rep.fail("the steady tenant's change after the aggregator restart: %v", err)
	}
	if r.rep.ReplayEventsAfterCheck, err = r.replayEvents(ctx); err != nil {
		return err
	}
	if r.rep.ReplayEventsAfterCheck != r.rep.ReplayEventsAtRestart {
		r.rep.fail("finished replays ran again after the aggregator restarted: %d replayed events, then %d",
			r.rep.ReplayEventsAtRestart, r.rep.ReplayEventsAfterCheck)
	}
	for name, phase := range phases {
		u, err := r.kollectObject(ctx, "KollectReplay", name)
		if err != nil {
			return err
		}
		if got, _, _ := unstructured.NestedString(u.Object, "status", "phase"); got != phase {
			r.rep.fail("replay %s went from %s to %s after the restart", name, phase, got)
		}
	}
	return nil
}
