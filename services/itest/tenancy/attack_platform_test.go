package tenancy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/testenv"
)

// platformInventory is the platform team's cluster inventory, which
// team-a is not granted: it binds a sink of team-a's namespace, and a sink
// that does not exist, so that it has conditions (and Events) to show.
const platformInventory = "platform-all"

// platformVectors are the attacks on what the platform team owns: its
// cluster inventory's history and the Events of its cluster-scoped objects.
func platformVectors() []vector {
	return []vector{
		{"a replay of the platform's cluster inventory reveals nothing without the webhook", replayPlatform},
		{"the platform's cluster inventory files no Event in default", platformEvents},
	}
}

// ensurePlatformInventory creates the platform's cluster inventory once.
func ensurePlatformInventory(t *testing.T) *v1alpha1.KollectClusterInventory {
	t.Helper()
	ci := &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: platformInventory},
		Spec: v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{"platform-targets"}, SinkNamespace: teamA,
			SnapshotSinkRefs: []v1alpha1.ClusterSinkBinding{{Name: "platform-only-sink"}}}}
	if err := suite.admin.Create(t.Context(), ci); client.IgnoreAlreadyExists(err) != nil {
		t.Fatalf("create the platform's cluster inventory: %v", err)
	}
	if err := suite.admin.Get(t.Context(), client.ObjectKeyFromObject(ci), ci); err != nil {
		t.Fatal(err)
	}
	return ci
}

// replayPlatform is F14 of SECURITY-3: alice creates, without the
// webhook, replays of the platform's cluster inventory and of one that
// does not exist into team-a's sink; both end AccessDenied with the same
// message, naming neither the inventory's sinks nor its history.
func replayPlatform(t *testing.T) {
	ensurePlatformInventory(t)
	asAlice(t)
	for name, inventory := range map[string]string{"replay-platform": platformInventory, "replay-missing": "platform-none"} {
		apply(t, asAlice(t), `
apiVersion: kollect.dev/v1alpha1
kind: KollectReplay
metadata: {name: $name, namespace: team-a}
spec:
  inventoryRef: {kind: KollectClusterInventory, name: $inventory}
  sink: snapshot/team-a/platform-only-sink
  backfill: {}
`, "$name", name, "$inventory", inventory)
		waitRefused(t, "KollectReplay", teamA, name, refuseReplay, nil)
	}
	var msgs []string
	for _, name := range []string{"replay-platform", "replay-missing"} {
		conds, err := conditionsOf(t.Context(), "KollectReplay", teamA, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range conds {
			if c.Type == v1alpha1.ConditionReady {
				msgs = append(msgs, strings.ReplaceAll(c.Message, platformInventory, "platform-none"))
			}
		}
	}
	if len(msgs) != 2 || msgs[0] != msgs[1] {
		t.Errorf("the denials of an existing and a missing inventory differ beyond its name: %q", msgs)
	}
}

// platformEvents is F17 of SECURITY-3: the Events of the platform's
// cluster inventory go to the release namespace (here kollect-system,
// where control finds itself outside a pod), none to default.
func platformEvents(t *testing.T) {
	release := app.DefaultLeaderNamespace
	if err := suite.admin.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: release}}); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	ci := ensurePlatformInventory(t)
	count := func(ns string) (int, error) {
		var list eventsv1.EventList
		if err := suite.admin.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
			return 0, err
		}
		n := 0
		for _, e := range list.Items {
			if e.Regarding.Kind == "KollectClusterInventory" && e.Regarding.Name == ci.Name {
				n++
			}
		}
		return n, nil
	}
	testenv.Eventually(t, refusalWait, "an Event of the platform's cluster inventory in "+release, func() error {
		n, err := count(release)
		if err == nil && n == 0 {
			err = fmt.Errorf("none yet")
		}
		return err
	}, testenv.Every(200*time.Millisecond))
	if n, err := count(metav1.NamespaceDefault); err != nil || n != 0 {
		t.Errorf("%d Events of the platform's cluster inventory in default (%v), want none", n, err)
	}
}
