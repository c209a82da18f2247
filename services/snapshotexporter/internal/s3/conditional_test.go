package s3

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// TestStoreWithoutConditionalWrites puts versitygw behind a proxy that
// answers every conditional put 501 NotImplemented, as an S3-compatible
// store without conditional writes does: the sink falls back to
// unconditional puts once and keeps writing.
func TestStoreWithoutConditionalWrites(t *testing.T) {
	p := startPeer(t)
	target, err := url.Parse(p.srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var refused, conditional atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && (r.Header.Get("If-Match") != "" || r.Header.Get("If-None-Match") != "") {
			conditional.Add(1)
			if refused.Add(1) <= 1 {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusNotImplemented)
				_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code>` +
					`<Message>A header you provided implies functionality that is not implemented</Message></Error>`))
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	b := newBucketName()
	p.srv.CreateBucket(t, b)
	spec := p.spec(b, "", "json", "none")
	spec.Endpoint = srv.URL + "/" + b
	spec.Provisioning = &v1alpha1.Provisioning{Mode: v1alpha1.ProvisionExisting}
	s := p.newSink(t, spec)
	for rev := uint64(1); rev <= 3; rev++ {
		objectstoretest.Write(t, s, objectstoretest.Pods(t, rev, int(rev)))
	}
	got, _, err := p.getter(b)(context.Background(), "inventory/team-a/web.json")
	if err != nil {
		t.Fatal(err)
	}
	if !contains(got, `"revision":3`) {
		t.Fatalf("the object holds %s, want revision 3", got)
	}
	if n := conditional.Load(); n != 1 {
		t.Errorf("the sink sent %d conditional puts, want 1 (refused, then none)", n)
	}
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }
