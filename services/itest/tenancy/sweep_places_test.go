package tenancy

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// gitPeer is the Git server of the sinks that work; started on first use.
var gitPeer struct {
	once sync.Once
	git  *testenv.Git
	err  error
}

// gitServer returns the suite's Git server, starting it once.
func gitServer() (*testenv.Git, error) {
	gitPeer.once.Do(func() {
		gitPeer.git, gitPeer.err = testenv.NewGit("", testenv.GitOptions{})
		if gitPeer.err == nil {
			onStop(func() { _ = gitPeer.git.Stop() })
		}
	})
	return gitPeer.git, gitPeer.err
}

// gitPlaces dumps every object (reachable or not, uncompressed) of every
// repository of the Git server.
func gitPlaces(context.Context) ([]place, error) {
	if gitPeer.git == nil {
		return nil, nil
	}
	var repos []string
	err := filepath.WalkDir(gitPeer.git.Root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.HasSuffix(path, ".git") {
			repos = append(repos, path)
			return filepath.SkipDir
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list Git repositories: %w", err)
	}
	var out []place
	for _, dir := range repos {
		cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
		cmd.Env = append(os.Environ(), "GIT_DIR="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		data, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("dump Git repository %s: %w", dir, err)
		}
		out = append(out, place{"Git repository " + dir, data})
	}
	return out, nil
}

// kollectKinds are the kollect.dev kinds the API server serves.
func kollectKinds() []string {
	var kinds []string
	for kind := range suite.admin.Scheme().KnownTypes(v1alpha1.GroupVersion) {
		if strings.HasPrefix(kind, "Kollect") && !strings.HasSuffix(kind, "List") {
			kinds = append(kinds, kind)
		}
	}
	sort.Strings(kinds)
	return kinds
}

// statusPlaces are the status of every Kollect object.
func statusPlaces(ctx context.Context) ([]place, error) {
	var out []place
	for _, kind := range kollectKinds() {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(schema.GroupVersionKind{Group: v1alpha1.GroupVersion.Group,
			Version: v1alpha1.GroupVersion.Version, Kind: kind + "List"})
		if err := suite.admin.List(ctx, list); err != nil {
			return nil, fmt.Errorf("list %s: %w", kind, err)
		}
		for _, o := range list.Items {
			data, _ := json.Marshal(o.Object["status"])
			out = append(out, place{fmt.Sprintf("status of %s %s/%s", kind, o.GetNamespace(), o.GetName()), data})
		}
	}
	return out, nil
}

// eventPlaces are every Event of every namespace.
func eventPlaces(ctx context.Context) ([]place, error) {
	var events corev1.EventList
	if err := suite.admin.List(ctx, &events); err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	var out []place
	for _, e := range events.Items {
		data, _ := json.Marshal(e)
		out = append(out, place{fmt.Sprintf("event %s/%s (%s on %s %s)", e.Namespace, e.Name, e.Reason,
			e.InvolvedObject.Kind, e.InvolvedObject.Name), data})
	}
	return out, nil
}
