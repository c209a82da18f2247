package gitlab

import (
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
)

func TestConformance(t *testing.T) {
	tests := []struct {
		name   string
		mr     bool
		layout *v1alpha1.GitLayout
		format string
	}{
		{name: "direct commits of one yaml document"},
		{name: "direct commits of one json file per row", layout: &v1alpha1.GitLayout{Mode: "perResource"}, format: "json"},
		{name: "a merge request branch per inventory holding one yaml document", mr: true},
		{name: "a merge request branch per inventory holding a split ndjson tree", mr: true,
			layout: &v1alpha1.GitLayout{Mode: "split"}, format: "ndjson"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, testenv.GitLabOptions{})
			spec := func(project string) v1alpha1.KollectSnapshotSinkSpec {
				s := p.spec(project)
				if tt.mr {
					s = p.mrSpec(project)
				}
				s.Layout = tt.layout
				if tt.format != "" {
					s.Serialization = &v1alpha1.SnapshotSerialization{Format: tt.format}
				}
				return s
			}
			prefix := ""
			if tt.mr {
				prefix = DefaultBranchPrefix
			}
			sinktest.Run(t, sinktest.Factory{
				New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
					project := p.newProject(t)
					return newSink(t, Backend{Egress: allowLoopback}, spec(project), p.creds), p.newReader(t, project, spec(project), prefix)
				},
				BadCredentials: func(t *testing.T) sink.Sink {
					creds := backend.MapCredentials{{Namespace: "team-a", Name: "gitlab"}: {"token": []byte("glpat-wrong")}}
					return newSink(t, Backend{Egress: allowLoopback}, spec(p.newProject(t)), creds)
				},
			})
		})
	}
}
