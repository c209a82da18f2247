package tenancy

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// secretAnnotationsYAML reads team-a's own Secret's annotations (where
// last-applied holds its data) without the Secret data opt-in.
const secretAnnotationsYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: secret-annotations, namespace: team-a}
spec:
  targetGVK: {version: v1, kind: Secret}
  attributes:
  - {name: name, path: $.metadata.name}
  - {name: annotations, path: $.metadata.annotations, optional: true}
  - {name: lastApplied, path: "$.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']", optional: true}
  - {name: celAnnotations, path: "cel:object.metadata.annotations", optional: true}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: secret-annotations, namespace: team-a}
spec:
  profileRef: {name: secret-annotations}
  includedNamespaces: [team-a]
  names: [own-secret]
`

// ownSecretAnnotations expects either a row without the Secret's data or
// the Profile refused for want of the opt-in.
func ownSecretAnnotations(t *testing.T) {
	apply(t, asAlice(t), secretAnnotationsYAML)
	optIn := refusal{anyOf: []outcome{readyFalse(v1alpha1.ReasonSecretExtractionNotAllowed)},
		mentions: regexp.MustCompile(regexp.QuoteMeta(v1alpha1.AnnotationAllowSecretExtraction))}
	testenv.Eventually(t, refusalWait, "the Secret's row or the opt-in refusal", func() error {
		rows, err := rowsOf(t.Context(), teamA, "secret-annotations")
		if err != nil {
			return err
		}
		for _, r := range rows {
			if leaks := leakedAttributes(r, nil); len(leaks) > 0 {
				t.Fatalf("the row of team-a/%s leaks: %s", r.Name, strings.Join(leaks, "; "))
			}
			if r.Name == "own-secret" {
				return nil
			}
		}
		conds, err := conditionsOf(t.Context(), "KollectTarget", teamA, "secret-annotations")
		if err != nil {
			return err
		}
		return optIn.check(conds)
	}, testenv.Every(200*time.Millisecond))
}

// ownInventory exports team-a's rows (every Target of team-a) to a Git
// repository of its own: a working sink, whose content the sweep reads,
// and which must show the redaction marker.
func ownInventory(t *testing.T) {
	g, err := gitServer()
	if err != nil {
		t.Fatalf("start Git server: %v", err)
	}
	url := g.CreateRepo(t, "team-a-own")
	apply(t, asAlice(t), `
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: own-git, namespace: team-a}
spec: {type: git, endpoint: "$url"}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: own, namespace: team-a}
spec: {snapshotSinkRefs: [own-git]}
`, "$url", url)
	dir := filepath.Join(g.Root, "team-a-own.git")
	testenv.Eventually(t, refusalWait, "team-a's Git repository holds a redaction marker", func() error {
		cmd := exec.Command("git", "grep", "-l", "redacted", "HEAD")
		cmd.Env = append(os.Environ(), "GIT_DIR="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("no file holds a marker yet: %s", exit.Stderr)
		}
		if err != nil || len(out) == 0 {
			return fmt.Errorf("git grep: %v", err)
		}
		return nil
	}, testenv.Every(200*time.Millisecond))
}
