package tenancy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/cli/verify/command"
	"kollect.dev/kollect/services/query/querytest"
)

// forgeVectors forge an inventory's history in its Git sink, as whoever
// may push to the repository can (issue 36, F13): kollect verify anchored
// to the query API must find it. The query service runs behind its own
// aggregating kube-apiserver and bus (querytest).
func forgeVectors() []vector {
	return []vector{
		{"a forged Git history fails kollect verify anchored to the bus", func(t *testing.T) {
			e := querytest.Start(t)
			inv := busv1.NamespacedName{Namespace: teamA, Name: "forged"}
			p, err := querytest.NewPublisher(t.Context(), e.NATS.JS, inv)
			if err != nil {
				t.Fatal(err)
			}
			rows := func(v string) []busv1.Row {
				return []busv1.Row{{TargetNamespace: teamA, TargetName: "apps", Namespace: teamA, Name: "web", UID: "w",
					Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{"image": v}}}
			}
			when := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			for i, v := range []string{"web:1", "web:2"} {
				if _, err := p.Publish(t.Context(), rows(v), when.Add(time.Duration(i)*time.Minute)); err != nil {
					t.Fatal(err)
				}
			}
			dir := t.TempDir()
			repo, err := git.PlainInit(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			const doc = "inventory/team-a/forged.json"
			prev := ""
			for rev, image := range []string{"web:1", "attacker:2"} {
				env, err := snapshot.Envelope(inv, uint64(rev+1), 1, rows(image))
				if err != nil {
					t.Fatal(err)
				}
				env.PreviousChecksum, prev = prev, env.Checksum
				b, _ := json.Marshal(env.Stamp("prod", when))
				commitFile(t, repo, dir, doc, b, fmt.Sprintf("export\n\nKollect-Revision: %d\nKollect-Checksum: %s\n", rev+1, env.Checksum),
					when.Add(time.Duration(rev+1)*time.Minute))
			}
			var out bytes.Buffer
			code := command.Main(t.Context(), []string{"git", dir, "--path", doc, "--anchor", teamA + "/forged", "--kubeconfig", e.Kubeconfig},
				command.Streams{Out: &out, Err: &out})
			if code != 1 || !strings.Contains(out.String(), "MISMATCH at revision 2") {
				t.Errorf("kollect verify --anchor: exit %d, output %q; want the forged revision 2 found", code, out.String())
			}
		}},
	}
}

// commitFile commits content at path of the repository in dir.
func commitFile(t *testing.T, r *git.Repository, dir, path string, content []byte, msg string, when time.Time) {
	t.Helper()
	full := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, content, 0o600); err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(path); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "someone with push access", Email: "x@example.com", When: when}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}
