package tree_test

import (
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/tree"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a DNS name is kept", "web-1.example", "web-1.example"},
		{"upper case and underscores are kept", "My_Name", "My_Name"},
		{"an empty value becomes an underscore", "", "_"},
		{"a slash cannot open a new segment", "a/b", "a_b"},
		{"a parent reference cannot climb", "..", "_.."},
		{"a dot value is not the current folder", ".", "_."},
		{"a leading dot cannot hide a file", ".git", "_.git"},
		{"spaces and colons become underscores", "a b:c", "a_b_c"},
		{"non-ASCII bytes become underscores", "café", "caf__"},
		{"a backslash becomes an underscore", `a\b`, "a_b"},
		{"a long value is cut to 200 bytes", string(make([]byte, 300)), string(repeat('_', 200))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tree.Sanitize(tt.in); got != tt.want {
				t.Fatalf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func repeat(c byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return b
}

func TestRowValuesAreSanitisedInPaths(t *testing.T) {
	env := fixture(t, []busv1.Row{{TargetName: "ct", Name: "../../etc", UID: "u/1", Group: "x.io", Version: "v1", Kind: "Weird Kind",
		Attributes: map[string]any{}}})
	env.Cluster = ""
	files, err := tree.Render(tree.Spec{Mode: tree.ModePerResource,
		ResourceTemplate: "{cluster}/{targetNamespace}/{group}/{kind}/{sourceNamespace}/{sourceName}/{uid}{extension}"}, env)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	want := "_/_cluster/x.io/weird_kind/_cluster/_.._.._etc/u_1.yaml"
	if len(files) != 1 || files[0].Path != want {
		t.Fatalf("rendered %v, want one file at %s", files, want)
	}
}

func TestStatePath(t *testing.T) {
	tests := []struct {
		name    string
		cluster string
		inv     busv1.NamespacedName
		want    string
	}{
		{"a namespaced inventory", "prod", busv1.NamespacedName{Namespace: "team-a", Name: "web"}, ".kollect/prod/team-a/web.json"},
		{"a cluster inventory", "prod", busv1.NamespacedName{Name: "all"}, ".kollect/prod/_cluster/all.json"},
		{"odd characters are sanitised", "a/b", busv1.NamespacedName{Namespace: "..", Name: "x y"}, ".kollect/a_b/_../x_y.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tree.StatePath(tt.cluster, tt.inv); got != tt.want {
				t.Fatalf("StatePath = %q, want %q", got, tt.want)
			}
		})
	}
}
