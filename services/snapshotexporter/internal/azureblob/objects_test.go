package azureblob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

func TestProvisioning(t *testing.T) {
	p := startPeer(t)
	t.Run("mode existing reports a missing container as a permanent error naming it", func(t *testing.T) {
		c := newContainerName()
		spec := p.spec(c, "", "json", "none")
		spec.Provisioning = &v1alpha1.Provisioning{Mode: v1alpha1.ProvisionExisting}
		err := p.newSink(t, spec, keySecret()).(sink.Checker).Check(context.Background())
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), c+" does not exist") {
			t.Fatalf("check returned %v, want a permanent error naming container %s", err, c)
		}
		if _, err := p.client(t, c).GetProperties(context.Background(), nil); !bloberror.HasCode(err, bloberror.ContainerNotFound) {
			t.Fatalf("reading the container returned %v, want ContainerNotFound: it was created", err)
		}
	})
	t.Run("mode ensure creates a missing container on the first write, and an existing one is kept", func(t *testing.T) {
		c := newContainerName()
		s := p.newSink(t, p.spec(c, "a", "json", "none"), keySecret())
		objectstoretest.Write(t, s, objectstoretest.Pods(t, 1, 2))
		again := p.newSink(t, p.spec(c, "a", "json", "none"), keySecret())
		if err := again.(sink.Checker).Check(context.Background()); err != nil {
			t.Fatalf("check of an existing container: %v", err)
		}
		want := []string{"a/.kollect/state/cluster=conformance/ns=team-a/name=web.json", "a/inventory/team-a/web.json"}
		if d := cmp.Diff(want, p.list(t, c)); d != "" {
			t.Errorf("objects (-want +got):\n%s", d)
		}
	})
}

// Compressed documents are files: their Content-Type says the compression
// and no Content-Encoding is set, so that no client decompresses them on
// download.
func TestBlobProperties(t *testing.T) {
	p := startPeer(t)
	for _, tt := range []struct{ format, compression, key, contentType string }{
		{"json", "gzip", "inventory/team-a/web.json.gz", "application/gzip"},
		{"ndjson", "none", "inventory/team-a/web.ndjson", "application/x-ndjson"},
	} {
		t.Run(tt.format+" with compression "+tt.compression, func(t *testing.T) {
			c := newContainerName()
			objectstoretest.Write(t, p.newSink(t, p.spec(c, "", tt.format, tt.compression), keySecret()), objectstoretest.Pods(t, 1, 2))
			props, err := p.client(t, c).NewBlobClient(tt.key).GetProperties(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := deref(props.ContentType); got != tt.contentType {
				t.Errorf("Content-Type %q, want %q", got, tt.contentType)
			}
			if got := deref(props.ContentEncoding); got != "" {
				t.Errorf("Content-Encoding %q, want none", got)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		code      string
		permanent bool
	}{
		{"a refused signature is permanent", http.StatusForbidden, "AuthenticationFailed", true},
		{"a missing permission is permanent", http.StatusForbidden, "AuthorizationPermissionMismatch", true},
		{"a missing container is permanent", http.StatusNotFound, "ContainerNotFound", true},
		{"an invalid request is permanent", http.StatusBadRequest, "InvalidHeaderValue", true},
		{"throttling is transient", http.StatusTooManyRequests, "", false},
		{"a busy server is transient", http.StatusServiceUnavailable, "ServerBusy", false},
		{"a container being deleted is transient", http.StatusConflict, "ContainerBeingDeleted", false},
		{"a timeout is transient", http.StatusRequestTimeout, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := classify(t.Context(), "put blob k in", "acme/lake", responseErr(t, tt.status, tt.code))
			if sink.IsPermanent(err) != tt.permanent {
				t.Fatalf("permanent = %t, want %t (%v)", sink.IsPermanent(err), tt.permanent, err)
			}
			want := fmt.Sprintf("put blob k in container acme/lake: HTTP %d", tt.status)
			if !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "sig=") {
				t.Fatalf("message %q, want one line starting %q without the request's query", err, want)
			}
		})
	}
	t.Run("a network error is transient and its URL loses its query", func(t *testing.T) {
		err := classify(t.Context(), "list", "acme/lake", &url.Error{Op: "Get", URL: "https://acme.blob.core.windows.net/lake?sig=abc", Err: errors.New("connection reset")})
		if sink.IsPermanent(err) || strings.Contains(err.Error(), "sig=abc") {
			t.Fatalf("got %v, want a transient error without the signature", err)
		}
	})
}

// A done context makes an error transient, even a refusal that is
// permanent otherwise, with context.Canceled in its chain: the write
// stopped, it did not fail.
func TestADoneContextMakesTheErrorTransient(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	t.Run("classify", func(t *testing.T) {
		err := classify(ctx, "put blob k in", "acme/lake", responseErr(t, http.StatusForbidden, "AuthenticationFailed"))
		if err == nil || sink.IsPermanent(err) || !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v (permanent %t), want a transient error wrapping context.Canceled", err, sink.IsPermanent(err))
		}
		if !strings.HasPrefix(err.Error(), "put blob k in container acme/lake: ") || strings.Contains(err.Error(), "\n") ||
			strings.Contains(err.Error(), "sig=") {
			t.Fatalf("message %q, want one line naming the operation, without the request's query", err)
		}
	})
	t.Run("a put on the emulator", func(t *testing.T) {
		f := startPeer(t).fixture(t, "json")
		_, err := f.Bucket.Put(ctx, "k", []byte("{}"), "application/json", "", objectstore.Condition{})
		if err == nil || sink.IsPermanent(err) || !errors.Is(err, context.Canceled) {
			t.Fatalf("put on a cancelled context returned %v (permanent %t), want a transient error wrapping context.Canceled",
				err, sink.IsPermanent(err))
		}
	})
}

// responseErr is the SDK's error for an answer of status with code.
func responseErr(t *testing.T, status int, code string) error {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, "https://acme.blob.core.windows.net/lake/k?sig=abc", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := &http.Response{StatusCode: status, Status: http.StatusText(status), Header: http.Header{}, Request: req,
		Body: io.NopCloser(strings.NewReader(""))}
	if code != "" {
		resp.Header.Set("x-ms-error-code", code)
	}
	return runtime.NewResponseError(resp)
}
