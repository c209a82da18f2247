package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query/querytest"
)

// TestDeadLettersThroughTheAPIServer runs kollect deadletters list, show
// and retry against the query service behind a real kube-apiserver, with
// the kubeconfig's credentials and no bus connection: retry creates a
// KollectReplay.
func TestDeadLettersThroughTheAPIServer(t *testing.T) {
	ctx := context.Background()
	e := querytest.Start(t)
	for _, ns := range []string{"shop", "ops"} {
		namespace(ctx, t, e.Kube.Client, ns, nil)
	}
	workloads, fleet := busv1.NamespacedName{Namespace: "shop", Name: "workloads"}, busv1.NamespacedName{Name: "fleet"}
	pg := busv1.SinkRef{Family: busv1.FamilyDatabase, Namespace: "shop", Name: "pg"}
	opsPG := busv1.SinkRef{Family: busv1.FamilyDatabase, Namespace: "ops", Name: "pg"}
	at := time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC)
	var seqs []uint64
	for _, l := range []struct {
		inv busv1.NamespacedName
		dl  busv1.DeadLetter
	}{
		{workloads, busv1.DeadLetter{Sink: &pg, Revision: 7, Time: at,
			Outcome: busv1.Outcome{Reason: "ExportRejected", Message: "database/pg: permission denied for table inventory"}}},
		{workloads, busv1.DeadLetter{Time: at.Add(time.Minute),
			Outcome: busv1.Outcome{Reason: "EventUndecodable", Message: "decode snapshot event: unexpected end of JSON input"}}},
		{fleet, busv1.DeadLetter{Sink: &opsPG, Revision: 3, Time: at.Add(2 * time.Minute),
			Outcome: busv1.Outcome{Reason: "ExportRejected", Message: "database/pg: permission denied"}}},
	} {
		l.dl.Subject = bus.SnapshotSubject(l.inv)
		b, err := json.Marshal(l.dl)
		if err != nil {
			t.Fatal(err)
		}
		ack, err := e.NATS.JS.Publish(ctx, bus.DeadLetterSubject(busv1.FamilyDatabase, l.inv), b)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, ack.Sequence)
	}
	dl := func(args ...string) (int, string, string) {
		return run(t, append([]string{"deadletters", "--kubeconfig", e.Kubeconfig}, args...)...)
	}

	t.Run("list reads a namespace's dead letters through the API server", func(t *testing.T) {
		code, stdout, stderr := dl("list", "-n", "shop", "-o", "wide")
		want := `SEQ   TIME                   INVENTORY        SINK             REVISION   REASON             MESSAGE
1     2026-01-01T00:05:00Z   shop/workloads   database/pg      7          ExportRejected     database/pg: permission denied for table inventory
2     2026-01-01T00:06:00Z   shop/workloads   database/<any>   0          EventUndecodable   decode snapshot event: unexpected end of JSON input
`
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if d := cmp.Diff(want, stdout); d != "" {
			t.Errorf("list (-want +got):\n%s", d)
		}
	})

	t.Run("an inventory, a family, every namespace and the cluster inventories", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want []uint64
		}{
			{[]string{"list", "shop/workloads"}, seqs[:2]},
			{[]string{"list", "workloads", "-n", "shop", "--family", "snapshot"}, nil},
			{[]string{"list", "shop/other"}, nil},
			{[]string{"list", "-A"}, seqs},
			{[]string{"list", "--cluster-inventory", "fleet"}, seqs[2:]},
		} {
			code, stdout, stderr := dl(append(tc.args, "-o", "json")...)
			var got []queryv1.DeadLetter
			if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil {
				t.Fatalf("%v: exit %d, stderr %s:\n%s", tc.args, code, stderr, stdout)
			}
			var gotSeqs []uint64
			for _, d := range got {
				gotSeqs = append(gotSeqs, d.Sequence)
			}
			if d := cmp.Diff(tc.want, gotSeqs); d != "" {
				t.Errorf("%v (-want +got):\n%s", tc.args, d)
			}
		}
	})

	t.Run("show prints one, found by sequence in the namespace or among the cluster inventories'", func(t *testing.T) {
		if code, stdout, stderr := dl("show", "shop/1"); code != 0 || !strings.Contains(stdout, "reason: ExportRejected") ||
			!strings.Contains(stdout, "revision: 7") || !strings.Contains(stdout, "kind: DeadLetter") {
			t.Fatalf("show: exit %d, stderr %s:\n%s", code, stderr, stdout)
		}
		if code, stdout, stderr := dl("show", "3", "-n", "shop", "-o", "json"); code != 0 || !strings.Contains(stdout, `"inventory": "fleet"`) {
			t.Fatalf("show of a cluster inventory's: exit %d, stderr %s:\n%s", code, stderr, stdout)
		}
		if code, _, stderr := dl("show", "9", "-n", "shop"); code != 1 || !strings.Contains(stderr, "not found") {
			t.Fatalf("show of a missing letter: exit %d, stderr %s", code, stderr)
		}
	})

	t.Run("retry creates a KollectReplay of the inventory, sink and revision", func(t *testing.T) {
		if code, _, stderr := dl("retry", "shop/2"); code != 1 || !strings.Contains(stderr, "names no sink") {
			t.Fatalf("retry without sink: exit %d, stderr %s", code, stderr)
		}
		for _, tc := range []struct {
			arg, name, ns string
			want          v1alpha1.KollectReplaySpec
		}{
			{"shop/1", "retry-pg", "shop", v1alpha1.KollectReplaySpec{InventoryRef: v1alpha1.ReplayInventoryRef{Kind: "KollectInventory", Name: "workloads"},
				Sink: "database/pg", Revision: new(int64(7))}},
			{"shop/3", "retry-fleet", "ops", v1alpha1.KollectReplaySpec{InventoryRef: v1alpha1.ReplayInventoryRef{Kind: "KollectClusterInventory", Name: "fleet"},
				Sink: "database/ops/pg", Revision: new(int64(3))}},
		} {
			code, stdout, stderr := dl("retry", tc.arg, "--name", tc.name)
			if code != 0 || stdout != "kollectreplay "+tc.ns+"/"+tc.name+" created\n" {
				t.Fatalf("retry %s: exit %d, stdout %q, stderr %q", tc.arg, code, stdout, stderr)
			}
			var got v1alpha1.KollectReplay
			if err := e.Kube.Client.Get(ctx, types.NamespacedName{Namespace: tc.ns, Name: tc.name}, &got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got.Spec); d != "" {
				t.Errorf("retry %s: spec (-want +got):\n%s", tc.arg, d)
			}
		}
	})

	t.Run("retry --wait follows the KollectReplay until it finished", func(t *testing.T) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			finishReplay(t, e.Kube.Client, "shop", "retry-wait", v1alpha1.ReplaySucceeded)
		}()
		code, stdout, stderr := dl("retry", "shop/1", "--name", "retry-wait", "--wait", "--timeout", "1m")
		<-done
		if code != 0 || !strings.Contains(stdout, "Succeeded: 2 of 2 revisions delivered") {
			t.Fatalf("retry --wait: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})

	t.Run("RBAC applies: reading needs the query resource and the inventory, retrying needs kollectreplays", func(t *testing.T) {
		if code, _, stderr := dl("list", "-n", "shop", "--as", "bob"); code != 1 || !strings.Contains(stderr, "forbidden") {
			t.Fatalf("bob lists: exit %d, stderr %s", code, stderr)
		}
		reader := []client.Object{
			&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "dead-letters", Namespace: "shop"}, Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{queryv1.Group}, Resources: []string{queryv1.ResourceDeadLetters}, Verbs: []string{"get", "list"}},
				{APIGroups: []string{v1alpha1.Group}, Resources: []string{"kollectinventories"}, Verbs: []string{"get"}},
			}},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "dead-letters", Namespace: "shop"},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "dead-letters"},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "alice"}}},
		}
		for _, o := range reader {
			if err := e.Kube.Client.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		code, stdout, stderr := dl("list", "-n", "shop", "--as", "alice", "-o", "json")
		if code != 0 || strings.Count(stdout, `"sequence"`) != 2 {
			t.Fatalf("alice lists: exit %d, stderr %s:\n%s", code, stderr, stdout)
		}
		if code, _, stderr := dl("retry", "shop/"+strconv.FormatUint(seqs[0], 10), "--as", "alice"); code != 1 ||
			!strings.Contains(stderr, "create KollectReplay") || !strings.Contains(stderr, "forbidden") {
			t.Fatalf("alice retries without create on kollectreplays: exit %d, stderr %s", code, stderr)
		}
	})
}

// TestDeadLettersWithoutAQueryAPI runs kollect deadletters against an API
// server that serves no query.kollect.dev and no kollect dev: every
// command says how to get one.
func TestDeadLettersWithoutAQueryAPI(t *testing.T) {
	t.Setenv("KOLLECT_DEV_QUERY_FILE", filepath.Join(t.TempDir(), "none.json"))
	k := testenv.StartKube(t)
	kcfg := kubeconfig(t, k)
	for _, args := range [][]string{{"list", "-n", "shop"}, {"show", "shop/1"}, {"retry", "shop/1"}} {
		code, _, stderr := run(t, append([]string{"deadletters", "--kubeconfig", kcfg}, args...)...)
		if code != 1 || !strings.Contains(stderr, "serves no query.kollect.dev API") || !strings.Contains(stderr, "kollect dev") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
