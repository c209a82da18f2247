package git

import (
	"context"
	"strings"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
)

// docExample is one Secret and the sink after it in docs/sinks/git.md.
type docExample struct {
	secret map[string]string
	sink   sinktest.DocObject[v1alpha1.KollectSnapshotSinkSpec]
}

func docExamples(t *testing.T) []docExample {
	t.Helper()
	var out []docExample
	var secret map[string]string
	for _, o := range sinktest.DocObjects[v1alpha1.KollectSnapshotSinkSpec](t, "docs/sinks/git.md", "KollectSnapshotSink") {
		switch o.Kind {
		case "Secret":
			secret = o.StringData
		case "KollectSnapshotSink":
			out = append(out, docExample{secret: secret, sink: o})
			secret = nil
		}
	}
	if len(out) != 2 {
		t.Fatalf("docs/sinks/git.md has %d examples, want 2", len(out))
	}
	return out
}

func TestDocExamples(t *testing.T) {
	examples := docExamples(t)
	http := startPeer(t, testenv.GitOptions{Token: "doc-token"})
	sshp := startSSHPeer(t)
	tests := []struct {
		name      string
		ex        docExample
		p         *peer
		endpoint  func(repo, url string) string
		secret    map[string]string
		wantFiles []string
		wantLog   string
	}{
		{"https with a token, one file per object", examples[0], http,
			func(_, url string) string { return url }, map[string]string{keyToken: "doc-token"},
			[]string{".kollect/prod-eu-1/team-a/web.json", "prod-eu-1/team-a/pod/a.yaml", "prod-eu-1/team-a/pod/b.yaml"},
			"Inventory Bot <inventory-bot@acme.example> chore(prod-eu-1/team-a/web): export 2 items @ "},
		{"ssh with a deploy key, one json document", examples[1], sshp.peer,
			func(repo, _ string) string { return "ssh://git@" + sshp.ssh.addr + "/" + repo + ".git" },
			map[string]string{keySSHKey: string(sshp.client.pem), keyKnownHosts: string(sshp.ssh.knownHosts)},
			[]string{".kollect/prod-eu-1/team-a/web.json", "prod-eu-1/team-a/web.json"},
			"kollect <kollect@kollect.dev> inventory prod-eu-1/team-a/web: 2 objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k := range tt.ex.secret {
				if _, ok := tt.secret[k]; !ok {
					t.Fatalf("the example's Secret key %q is not rewritten by the test", k)
				}
			}
			repo, url := tt.p.newRepo(t)
			spec := tt.ex.sink.Spec
			spec.Endpoint = tt.endpoint(repo, url)
			creds := backend.MapCredentials{{Namespace: tt.ex.sink.Metadata.Namespace, Name: spec.SecretRef.Name}: bytesOf(tt.secret)}
			cfg := cfgFor(t, spec)
			cfg.Cluster = spec.Cluster
			s, err := (&Backend{Egress: allowLoopback}).New(context.Background(), cfg, creds)
			if err != nil {
				t.Fatalf("new sink from the doc example: %v", err)
			}
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			sn := snap(t, "team-a", 1, pod("team-a", "a", 1), pod("team-a", "b", 1))
			sn.Envelope.Cluster = spec.Cluster
			write(t, s, sn)
			if got := lsTree(t, tt.p, repo); strings.Join(got, ",") != strings.Join(tt.wantFiles, ",") {
				t.Errorf("files %v, want %v", got, tt.wantFiles)
			}
			if got := tt.p.g.Run(t, repo, "log", "-1", "--format=%an <%ae> %s", "main"); !strings.HasPrefix(got, tt.wantLog) {
				t.Errorf("commit %q, want prefix %q", got, tt.wantLog)
			}
		})
	}
}

func bytesOf(m map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}
