package command_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/cli/verify/command"
	"kollect.dev/kollect/services/query/querytest"
)

// TestVerifyAnchoredToTheQueryAPIFindsAForgedRevision publishes web's two
// revisions on the bus (served by the query API behind a real
// kube-apiserver), exports revision 1 and a forged revision 2 to Git (its
// rows rewritten, its checksum recomputed, revision 1's checksum as
// previousChecksum, as anyone with push access can), and runs kollect
// verify with and without --anchor.
func TestVerifyAnchoredToTheQueryAPIFindsAForgedRevision(t *testing.T) {
	e := querytest.Start(t)
	ctx := context.Background()
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	p, err := querytest.NewPublisher(ctx, e.NATS.JS, inv)
	if err != nil {
		t.Fatal(err)
	}
	image := func(v string) []busv1.Row {
		return []busv1.Row{{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "web-0", UID: "u0",
			Version: "v1", Kind: "Pod", Attributes: map[string]any{"image": v}}}
	}
	when := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for i, v := range []string{"web:1", "web:2"} {
		if _, err := p.Publish(ctx, image(v), when.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	const path = "inventory/team-a/web.json"
	prev := ""
	for _, c := range []struct {
		rev   uint64
		image string
	}{{1, "web:1"}, {2, "evil:2"}} {
		env, err := snapshot.Envelope(inv, c.rev, 1, image(c.image))
		if err != nil {
			t.Fatal(err)
		}
		env.PreviousChecksum, prev = prev, env.Checksum
		b, _ := json.Marshal(env.Stamp("prod", when))
		commitDoc(t, r, dir, path, b, fmt.Sprintf("chore(prod/team-a/web): export 1 items @ %s\n\nKollect-Revision: %d\nKollect-Checksum: %s\n",
			env.Checksum[:12], c.rev, env.Checksum), when.Add(time.Duration(c.rev)*time.Minute))
	}
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := command.Main(ctx, args, command.Streams{Out: &out, Err: &errOut})
		return code, out.String() + errOut.String()
	}
	if code, out := run("git", dir, "--path", path); code != 0 {
		t.Fatalf("without an anchor the forgery verifies (consistent in itself): exit %d, output %q", code, out)
	}
	code, out := run("git", dir, "--path", path, "--anchor", "team-a/web", "--kubeconfig", e.Kubeconfig)
	if code != 1 || !strings.Contains(out, "MISMATCH at revision 2") || !strings.Contains(out, "not the one the anchor recorded") {
		t.Fatalf("anchored: exit %d, output %q; want the forged revision 2 found", code, out)
	}
	if code, out := run("git", dir, "--path", path, "--anchor", "team-a/other", "--kubeconfig", e.Kubeconfig); code != 2 ||
		!strings.Contains(out, "--anchor team-a/other") {
		t.Fatalf("anchored to an inventory without history: exit %d, output %q; want an error", code, out)
	}
}
