package informers

import (
	"io"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"
)

// TestEventDecoderReadsAWatchStream reads a stream as the API server writes
// it: objects decoded as the Requirement needs them, a bookmark, an error
// as a Status, then io.EOF; a stream cut short is io.ErrUnexpectedEOF.
func TestEventDecoderReadsAWatchStream(t *testing.T) {
	const stream = `{"type":"ADDED","object":{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"shop","uid":"u1","resourceVersion":"5","managedFields":[{}]},"spec":{"replicas":2,"paused":true}}}
{"type":"BOOKMARK","object":{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"resourceVersion":"6","annotations":{"k8s.io/initial-events-end":"true"}}}}
{"object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Expired","code":410},"type":"ERROR"}
`
	e := newEventDecoder(io.NopCloser(strings.NewReader(stream)), Requirement{Fields: imageFields()}.decoder())
	typ, obj, err := e.Decode()
	if err != nil || typ != watch.Added {
		t.Fatalf("first event %q, %v", typ, err)
	}
	u, err := AsUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	if got := size(t, u); got != size(t, decode(t, `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"shop","uid":"u1","resourceVersion":"5"},"spec":{"replicas":2}}`)) {
		t.Errorf("added object %v: not what the Requirement keeps", u.Object)
	}
	typ, obj, err = e.Decode()
	if err != nil || typ != watch.Bookmark {
		t.Fatalf("second event %q, %v", typ, err)
	}
	if m, _ := meta.Accessor(obj); m.GetResourceVersion() != "6" || m.GetAnnotations()["k8s.io/initial-events-end"] != "true" {
		t.Errorf("bookmark %v", obj)
	}
	typ, obj, err = e.Decode()
	if err != nil || typ != watch.Error || !apierrors.IsResourceExpired(apierrors.FromObject(obj)) {
		t.Fatalf("third event %q %v, %v", typ, obj, err)
	}
	if _, _, err := e.Decode(); err != io.EOF {
		t.Errorf("end of stream: %v, want io.EOF", err)
	}
	cut := newEventDecoder(io.NopCloser(strings.NewReader(stream[:60])), Requirement{}.decoder())
	if _, _, err := cut.Decode(); err != io.ErrUnexpectedEOF {
		t.Errorf("stream cut short: %v, want io.ErrUnexpectedEOF", err)
	}
}
