package gitlab

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// isPermanentNaming reports whether err is permanent and mentions what.
func isPermanentNaming(err error, what string) bool {
	return sink.IsPermanent(err) && strings.Contains(err.Error(), what)
}

func TestErrorClassification(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, p *peer, spec *v1alpha1.KollectSnapshotSinkSpec) backend.Credentials
		permanent bool
		mention   string
	}{
		{name: "a refused token is permanent", permanent: true, mention: "401",
			setup: func(_ *testing.T, _ *peer, _ *v1alpha1.KollectSnapshotSinkSpec) backend.Credentials {
				return backend.MapCredentials{{Namespace: "team-a", Name: "gitlab"}: {"token": []byte("glpat-wrong")}}
			}},
		{name: "an unknown project is permanent and named", permanent: true, mention: `"team/missing"`,
			setup: func(_ *testing.T, _ *peer, spec *v1alpha1.KollectSnapshotSinkSpec) backend.Credentials {
				spec.GitLab.Project = "team/missing"
				return nil
			}},
		{name: "server errors are transient", mention: "500",
			setup: func(_ *testing.T, p *peer, _ *v1alpha1.KollectSnapshotSinkSpec) backend.Credentials {
				p.gl.FailNext(http.StatusInternalServerError, 100)
				return nil
			}},
		{name: "rate limiting is transient", mention: "429",
			setup: func(_ *testing.T, p *peer, _ *v1alpha1.KollectSnapshotSinkSpec) backend.Credentials {
				p.gl.FailNext(http.StatusTooManyRequests, 100)
				return nil
			}},
		{name: "a refused connection is transient", mention: "connect",
			setup: func(_ *testing.T, _ *peer, spec *v1alpha1.KollectSnapshotSinkSpec) backend.Credentials {
				spec.Endpoint = "http://127.0.0.1:1"
				return nil
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, testenv.GitLabOptions{})
			spec := p.spec(p.newProject(t))
			var creds backend.Credentials = p.creds
			if c := tt.setup(t, p, &spec); c != nil {
				creds = c
			}
			s := newSink(t, Backend{Egress: allowLoopback}, spec, creds)
			for name, err := range map[string]error{"write": s.Write(t.Context(), snap(t, 1, pod("team-a", "api", 1))),
				"check": s.Check(t.Context())} {
				if err == nil || sink.IsPermanent(err) != tt.permanent || !strings.Contains(err.Error(), tt.mention) {
					t.Fatalf("%s returned %v, want an error mentioning %s with permanent=%v", name, err, tt.mention, tt.permanent)
				}
				if strings.Contains(err.Error(), token) {
					t.Fatalf("%s error carries the token: %v", name, err)
				}
			}
		})
	}
}

// cancelAfter is a transport that cancels the call's context once the
// answer is in, so that an answer and a done context meet.
type cancelAfter struct{ cancel context.CancelFunc }

func (c cancelAfter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	c.cancel()
	return resp, err
}

// A done context makes an error transient, even a refused token that is
// permanent otherwise, with context.Canceled in its chain: the write
// stopped, it did not fail.
func TestADoneContextMakesTheErrorTransient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"message":"401 Unauthorized"}`))
	}))
	t.Cleanup(srv.Close)
	call := func(ctx context.Context, rt http.RoundTripper) error {
		c := &client{http: &http.Client{Transport: rt}, api: srv.URL + "/api/v4", project: "team/x", token: token}
		_, err := c.do(ctx, request{method: http.MethodGet, path: c.projectPath("")}, nil)
		return err
	}
	if err := call(t.Context(), http.DefaultTransport); !sink.IsPermanent(err) || errors.Is(err, context.Canceled) {
		t.Fatalf("a refused token returned %v, want a permanent error", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	err := call(ctx, cancelAfter{cancel})
	if err == nil || sink.IsPermanent(err) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("a refused token on a done context returned %v (permanent %t), want a transient error wrapping context.Canceled and naming the 401",
			err, sink.IsPermanent(err))
	}

	t.Run("a write to the peer", func(t *testing.T) {
		p := startPeer(t, testenv.GitLabOptions{})
		s := newSink(t, Backend{Egress: allowLoopback}, p.spec(p.newProject(t)), p.creds)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		for name, err := range map[string]error{"write": s.Write(ctx, snap(t, 1, pod("team-a", "api", 1))),
			"check": s.Check(ctx)} {
			if err == nil || sink.IsPermanent(err) || !errors.Is(err, context.Canceled) {
				t.Fatalf("%s on a cancelled context returned %v, want a transient error wrapping context.Canceled", name, err)
			}
		}
	})
}

func TestRateLimitingCarriesTheWaitGitLabAsksFor(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	spec := p.spec(p.newProject(t))
	p.gl.FailNextRetryAfter(http.StatusTooManyRequests, 1, "42")
	s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
	err := s.Write(t.Context(), snap(t, 1, pod("team-a", "api", 1)))
	if err == nil || sink.IsPermanent(err) || sink.RetryAfterOf(err) != 42*time.Second {
		t.Fatalf("write answered 429 with Retry-After: 42 returned %v (retry after %v), want a transient error asking for 42s",
			err, sink.RetryAfterOf(err))
	}
	if err := s.Write(t.Context(), snap(t, 1, pod("team-a", "api", 1))); err != nil {
		t.Fatalf("the retry after the rate limit failed: %v", err)
	}
}

func TestAConflictingCommitIsPlannedAgainOnce(t *testing.T) {
	var calls atomic.Int64
	var p *peer
	var project string
	p = startPeer(t, testenv.GitLabOptions{BeforeCommit: func(string, string) {
		// Another writer changes the very file the sink is about to write:
		// it creates it when the sink planned a create (calls 1 and 4) and
		// deletes it when the sink planned an update (call 3).
		switch calls.Add(1) {
		case 1, 4:
			p.gl.PutFile(t, project, "main", "inventory/team-a/web.yaml", "someone else's\n")
		case 3:
			p.gl.DeleteFile(t, project, "main", "inventory/team-a/web.yaml")
		}
	}})
	project = p.newProject(t)
	spec := p.spec(project)
	s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
	first := snap(t, 1, pod("team-a", "api", 1))
	write(t, s, first)
	if got := calls.Load(); got != 2 {
		t.Fatalf("%d commit requests, want a refused one and its retry", got)
	}
	got, _, err := p.newReader(t, project, spec, "").Read(context.Background(), "conformance", first.Envelope.Inventory)
	if err != nil || got.Checksum != first.Envelope.Checksum {
		t.Fatalf("after the retry the branch holds %v (%v)", got, err)
	}

	err = s.Write(context.Background(), snap(t, 2, pod("team-a", "api", 2)))
	var ae *apiError
	if err == nil || sink.IsPermanent(err) || !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
		t.Fatalf("a second refused commit returned %v, want a transient 400 error", err)
	}
	if got := calls.Load(); got != 4 {
		t.Fatalf("%d commit requests, want 4 (two per write)", got)
	}
}

func TestTheDefaultEgressPolicyRefusesTheLoopbackPeer(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	s := newSink(t, Backend{}, p.spec(p.newProject(t)), p.creds)
	for name, err := range map[string]error{"write": s.Write(t.Context(), snap(t, 1)), "check": s.Check(t.Context())} {
		if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
			t.Fatalf("%s returned %v, want a permanent error wrapping egress.ErrDenied", name, err)
		}
	}
}

func TestInvalidSpecsArePermanentAndNamed(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	tests := []struct {
		name    string
		edit    func(*v1alpha1.KollectSnapshotSinkSpec)
		creds   backend.Credentials
		mention string
	}{
		{"a missing gitlab block", func(s *v1alpha1.KollectSnapshotSinkSpec) { s.GitLab = nil }, nil, "spec.gitlab"},
		{"an invalid branch", func(s *v1alpha1.KollectSnapshotSinkSpec) { s.GitLab.Branch = "a..b" }, nil, "spec.gitlab.branch"},
		{"a non-http endpoint", func(s *v1alpha1.KollectSnapshotSinkSpec) { s.Endpoint = "ssh://gitlab.example.com" }, nil, "spec.endpoint"},
		{"an endpoint with credentials", func(s *v1alpha1.KollectSnapshotSinkSpec) { s.Endpoint = "https://u:p@gitlab.example.com" }, nil, "spec.endpoint"},
		{"an endpoint with a query", func(s *v1alpha1.KollectSnapshotSinkSpec) { s.Endpoint = "https://gitlab.example.com/?a=b" }, nil, "spec.endpoint"},
		{"an invalid merge request target branch", func(s *v1alpha1.KollectSnapshotSinkSpec) {
			s.GitLab.MergeRequest = &v1alpha1.GitLabMergeRequest{Mode: ModeMergeRequest, TargetBranch: "/main"}
		}, nil, "spec.gitlab.mergeRequest.targetBranch"},
		{"no secretRef", func(s *v1alpha1.KollectSnapshotSinkSpec) { s.SecretRef = nil }, nil, "spec.secretRef"},
		{"a missing Secret", func(s *v1alpha1.KollectSnapshotSinkSpec) { s.SecretRef.Name = "absent" }, nil, "absent"},
		{"a Secret without the token key", func(*v1alpha1.KollectSnapshotSinkSpec) {},
			backend.MapCredentials{{Namespace: "team-a", Name: "gitlab"}: {"password": []byte("x")}}, `"token"`},
		{"an invalid layout", func(s *v1alpha1.KollectSnapshotSinkSpec) { s.Layout = &v1alpha1.GitLayout{Mode: "flat"} }, nil, "layout.mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := p.spec("team/x")
			tt.edit(&spec)
			creds := tt.creds
			if creds == nil {
				creds = p.creds
			}
			_, err := Backend{Egress: allowLoopback}.New(context.Background(), cfgFor(t, spec), creds)
			if !isPermanentNaming(err, tt.mention) {
				t.Fatalf("New returned %v, want a permanent error naming %s", err, tt.mention)
			}
		})
	}
}
