package command_test

import (
	"bytes"
	"context"
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
)

// commitDoc commits content at path of the repository in dir with msg.
func commitDoc(t *testing.T, r *git.Repository, dir, path string, content []byte, msg string, when time.Time) {
	t.Helper()
	full := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, content, 0o644); err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(path); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "kollect", Email: "kollect@kollect.dev", When: when}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyGitExitStatus(t *testing.T) {
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	const path = "inventory/team-a/web.json"
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	when := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	prev := ""
	for rev := uint64(1); rev <= 2; rev++ {
		rows := []busv1.Row{{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "web-0", UID: "u0",
			Version: "v1", Kind: "Pod", Attributes: map[string]any{"image": fmt.Sprintf("web:%d", rev)}}}
		env, err := snapshot.Envelope(inv, rev, 1, rows)
		if err != nil {
			t.Fatal(err)
		}
		env.PreviousChecksum, prev = prev, env.Checksum
		b, _ := json.Marshal(env.Stamp("prod", when))
		commitDoc(t, r, dir, path, b, fmt.Sprintf("chore(prod/team-a/web): export 1 items @ %s\n\nKollect-Revision: %d\nKollect-Checksum: %s\n",
			env.Checksum[:12], rev, env.Checksum), when.Add(time.Duration(rev)*time.Minute))
	}
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := command.Main(context.Background(), args, command.Streams{Out: &out, Err: &errOut})
		return code, out.String() + errOut.String()
	}
	if code, out := run("git", dir, "--path", path); code != 0 || !strings.Contains(out, "OK: 2 revisions verified, 1 previousChecksum links") {
		t.Fatalf("untouched: exit %d, output %q", code, out)
	}
	if code, out := run("git", dir); code != 2 || !strings.Contains(out, "--path is required") {
		t.Fatalf("without --path: exit %d, output %q", code, out)
	}
	commitDoc(t, r, dir, path, []byte(`{"items":[]}`), "empty it by hand\n", when.Add(time.Hour))
	if code, out := run("git", dir, "--path", path); code != 1 || !strings.Contains(out, "MISMATCH at revision 2") {
		t.Fatalf("after a hand edit: exit %d, output %q", code, out)
	}
	t.Setenv("KOLLECT_TEST_NO_DSN", "")
	if code, out := run("postgres", "--dsn-env", "KOLLECT_TEST_NO_DSN", "--table", "t", "--inventory", "a/b"); code != 2 || !strings.Contains(out, "KOLLECT_TEST_NO_DSN holds no connection string") {
		t.Fatalf("without a connection string: exit %d, output %q", code, out)
	}
}

func TestVerifyObjectStoresNeedBucketAndInventory(t *testing.T) {
	for _, store := range []string{"s3", "gcs"} {
		var out, errOut bytes.Buffer
		code := command.Main(context.Background(), []string{store, "--inventory", "team-a/web"}, command.Streams{Out: &out, Err: &errOut})
		if code != 2 || !strings.Contains(errOut.String(), "--bucket and --inventory are required") {
			t.Errorf("%s without --bucket: exit %d, stderr %q", store, code, errOut.String())
		}
	}
}
