package itest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

// waitFor is how long a scenario waits for the system to converge.
const waitFor = 60 * time.Second

// namespace creates a namespace named after the scenario and returns its
// name.
func namespace(t *testing.T, name string, labels map[string]string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if err := sys.k8s.Create(t.Context(), ns); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	// What a namespace admin does for Kollect: let the namespace's Targets
	// (ServiceAccount kollect) read it.
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: "kollect-read"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: readerRole},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: name, Name: "kollect"}}}
	if err := sys.k8s.Create(t.Context(), rb); err != nil {
		t.Fatalf("grant the Targets of %s their namespace: %v", name, err)
	}
	return name
}

// apply creates every object of a multi-document YAML text, after
// replacing each "$key" of vars (longest keys first is up to the caller:
// keys must not be prefixes of one another).
func apply(t *testing.T, text string, vars ...string) []*unstructured.Unstructured {
	t.Helper()
	text = strings.NewReplacer(vars...).Replace(text)
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(text), 4096)
	var objs []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("decode YAML: %v\n%s", err, text)
		}
		if len(u.Object) == 0 {
			continue
		}
		if err := sys.k8s.Create(t.Context(), u); err != nil {
			t.Fatalf("create %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		objs = append(objs, u)
	}
	return objs
}

// secret creates a Secret with string data.
func secret(t *testing.T, ns, name string, data map[string]string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data}
	if err := sys.k8s.Create(t.Context(), s); err != nil {
		t.Fatalf("create Secret %s/%s: %v", ns, name, err)
	}
}

// eventually polls check every 100ms until it returns nil; after d it
// fails the test with the last error and the state of the inventories
// named in dump ("namespace/name", or "/name" for a cluster inventory).
func eventually(t *testing.T, d time.Duration, what string, check func() error, dump ...string) {
	t.Helper()
	if err := testenv.Poll(t.Context(), d, check, testenv.Every(100*time.Millisecond)); err != nil {
		t.Fatalf("%s: not within %s: %v\n%s", what, d, err, state(t, dump...))
	}
}

// state renders the status of inventories and the service log lines that
// mention them, for failure messages.
func state(t *testing.T, invs ...string) string {
	var b strings.Builder
	for _, ref := range invs {
		ns, name, _ := strings.Cut(ref, "/")
		var obj client.Object = &v1alpha1.KollectInventory{}
		if ns == "" {
			obj = &v1alpha1.KollectClusterInventory{}
		}
		if err := sys.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
			fmt.Fprintf(&b, "inventory %s: %v\n", ref, err)
			continue
		}
		status := map[string]any{}
		switch o := obj.(type) {
		case *v1alpha1.KollectInventory:
			status["status"] = o.Status
		case *v1alpha1.KollectClusterInventory:
			status["status"] = o.Status
		}
		js, _ := json.MarshalIndent(status, "", "  ")
		fmt.Fprintf(&b, "inventory %s: %s\n", ref, js)
		var targets v1alpha1.KollectTargetList
		if ns != "" && sys.k8s.List(t.Context(), &targets, client.InNamespace(ns)) == nil {
			for _, tg := range targets.Items {
				js, _ := json.Marshal(tg.Status)
				fmt.Fprintf(&b, "target %s/%s: %s\n", ns, tg.Name, js)
			}
		}
		needle := ns
		if needle == "" {
			needle = name
		}
		b.WriteString(logLines(needle, 25))
	}
	return b.String()
}

// logLines returns the last n service log lines containing needle.
func logLines(needle string, n int) string {
	data, err := os.ReadFile(sys.logFile)
	if err != nil {
		return ""
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), needle) {
			lines = append(lines, sc.Text())
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "last log lines:\n" + strings.Join(lines, "\n") + "\n"
}

// norm returns rows sorted as the contract sorts them, with their
// attributes passed through JSON (numbers become float64), so that rows
// built in a test compare equal to rows read back from a sink.
func norm(t *testing.T, rows []busv1.Row) []busv1.Row {
	t.Helper()
	data, err := json.Marshal(rows)
	if err != nil {
		t.Fatalf("encode rows: %v", err)
	}
	out := []busv1.Row{}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("decode rows: %v", err)
	}
	snapshot.Sort(out)
	return out
}

// checksum is the contract checksum of rows.
func checksum(t *testing.T, rows []busv1.Row) string {
	t.Helper()
	rows = norm(t, rows)
	sum, err := snapshot.Checksum(rows)
	if err != nil {
		t.Fatalf("checksum: %v", err)
	}
	return sum
}
