package git

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
		opts   testenv.GitOptions
		layout *v1alpha1.GitLayout
		format string
		bad    map[string][]byte // credentials the peer refuses; nil: none
		file   bool
	}{
		{name: "http with basic auth, one yaml document",
			opts: testenv.GitOptions{Username: "kollect", Password: "s3cret"},
			bad:  map[string][]byte{keyUsername: []byte("kollect"), keyPassword: []byte("wrong")}},
		{name: "https with a custom CA and token auth, one yaml file per row",
			opts:   testenv.GitOptions{TLS: true, Token: "tok-123"},
			layout: &v1alpha1.GitLayout{Mode: "perResource"},
			bad:    map[string][]byte{keyToken: []byte("wrong")}},
		{name: "http with token auth, split json",
			opts:   testenv.GitOptions{Token: "tok-456"},
			layout: &v1alpha1.GitLayout{Mode: "split"}, format: "json",
			bad: map[string][]byte{keyToken: []byte("wrong")}},
		{name: "file with a disk cache, one ndjson document", format: "ndjson", file: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, tt.opts)
			spec := func(url string) v1alpha1.KollectSnapshotSinkSpec {
				s := p.spec(url)
				s.Layout = tt.layout
				if tt.format != "" {
					s.Serialization = &v1alpha1.SnapshotSerialization{Format: tt.format}
				}
				return s
			}
			f := sinktest.Factory{New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
				name, url := p.newRepo(t)
				b := &Backend{Egress: allowLoopback}
				endpoint := url
				if tt.file {
					endpoint = "file://" + p.g.Root + "/" + name + ".git"
					b.Egress.AllowLocalFiles = true // file:// has its own opt-in
					b.CacheDir = t.TempDir()
				}
				return newSink(t, b, spec(endpoint), p.creds), p.newReader(t, url, spec(url))
			}}
			if tt.bad != nil {
				f.BadCredentials = func(t *testing.T) sink.Sink {
					_, url := p.newRepo(t)
					creds := backend.MapCredentials{{Namespace: "team-a", Name: "git"}: tt.bad}
					return newSink(t, &Backend{Egress: allowLoopback}, spec(url), creds)
				}
			}
			sinktest.Run(t, f)
		})
	}
}
