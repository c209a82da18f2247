package azureblob

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// peer is an Azurite blob service with a shared-key credential of its
// account for reading back.
type peer struct {
	srv *testenv.Azurite
	key *container.SharedKeyCredential
}

var containerSeq atomic.Int64

// shared is the package's one Azurite: node takes seconds to load it, and
// every test works in containers of its own (newContainerName).
var shared struct {
	once sync.Once
	peer *peer
	err  error
}

// TestMain stops the shared Azurite, if a test started it, and shows its
// log when a test failed.
func TestMain(m *testing.M) {
	code := m.Run()
	if p := shared.peer; p != nil {
		if code != 0 {
			fmt.Fprintf(os.Stderr, "azurite log: %s\n", p.srv.LogFile)
		}
		if err := p.srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop azurite: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// startPeer returns the shared Azurite, starting it on first use.
func startPeer(t testing.TB) *peer {
	t.Helper()
	shared.once.Do(func() {
		key, err := container.NewSharedKeyCredential(testenv.AzuriteAccount, testenv.AzuriteKey)
		if err != nil {
			shared.err = err
			return
		}
		srv, err := testenv.NewAzurite("")
		if err != nil {
			shared.err = err
			return
		}
		shared.peer = &peer{srv: srv, key: key}
	})
	if shared.err != nil {
		t.Fatalf("start Azurite: %v", shared.err)
	}
	return shared.peer
}

func newContainerName() string { return fmt.Sprintf("kollect-%d", containerSeq.Add(1)) }

// secretName is the Secret of team-a holding the emulator's account key.
const secretName = "azure"

// keySecret is the credentials of team-a with the emulator's account key in
// Secret azure.
func keySecret() backend.MapCredentials {
	return backend.MapCredentials{{Namespace: "team-a", Name: secretName}: {
		KeyAccountName: []byte(testenv.AzuriteAccount), KeyAccountKey: []byte(testenv.AzuriteKey)}}
}

// spec returns an azureblob sink spec for container/prefix on the peer,
// authorised by the shared key of Secret azure.
func (p *peer) spec(containerName, prefix, format, compression string) v1alpha1.KollectSnapshotSinkSpec {
	return v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotAzureBlob,
		Endpoint:      p.srv.AccountURL() + "/" + containerName + "/" + prefix,
		SinkCommon:    v1alpha1.SinkCommon{Cluster: "conformance", SecretRef: &v1alpha1.SecretReference{Name: secretName}},
		Serialization: &v1alpha1.SnapshotSerialization{Format: format, Compression: compression}}
}

func sinkConfig(t testing.TB, spec v1alpha1.KollectSnapshotSinkSpec) busv1.SinkConfig {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "azureblob", Namespace: "team-a", Name: "archive",
		Cluster: spec.Cluster, Spec: raw}
}

// newSink builds a sink of spec on the peer, allowing loopback.
func (p *peer) newSink(t testing.TB, spec v1alpha1.KollectSnapshotSinkSpec, creds backend.Credentials) sink.Sink {
	t.Helper()
	s, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.New(context.Background(), sinkConfig(t, spec), creds)
	if err != nil {
		t.Fatalf("new azureblob sink: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// client is a plain shared-key client of containerName.
func (p *peer) client(t testing.TB, containerName string) *container.Client {
	t.Helper()
	c, err := container.NewClientWithSharedKeyCredential(p.srv.AccountURL()+"/"+containerName, p.key, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// createContainer creates containerName with the plain client.
func (p *peer) createContainer(t testing.TB, containerName string) {
	t.Helper()
	if _, err := p.client(t, containerName).Create(context.Background(), nil); err != nil {
		t.Fatalf("create container %s: %v", containerName, err)
	}
}

// getter reads blobs of containerName with the plain client.
func (p *peer) getter(t testing.TB, containerName string) objectstoretest.Getter {
	c := p.client(t, containerName)
	return func(ctx context.Context, key string) ([]byte, bool, error) {
		out, err := c.NewBlobClient(key).DownloadStream(ctx, nil)
		if bloberror.HasCode(err, bloberror.BlobNotFound, bloberror.ContainerNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		defer out.Body.Close()
		b, err := io.ReadAll(out.Body)
		return b, err == nil, err
	}
}

// deleter deletes blobs of containerName with the plain client.
func (p *peer) deleter(t testing.TB, containerName string) func(ctx context.Context, key string) error {
	c := p.client(t, containerName)
	return func(ctx context.Context, key string) error {
		_, err := c.NewBlobClient(key).Delete(ctx, nil)
		return err
	}
}

// putter uploads blobs of containerName with the plain client (a hand
// edit).
func (p *peer) putter(t testing.TB, containerName string) func(ctx context.Context, key string, body []byte) error {
	c := p.client(t, containerName)
	return func(ctx context.Context, key string, body []byte) error {
		_, err := c.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(bytes.NewReader(body)), nil)
		return err
	}
}

// list returns every blob name of containerName with the plain client.
func (p *peer) list(t testing.TB, containerName string) []string {
	t.Helper()
	var keys []string
	pager := p.client(t, containerName).NewListBlobsFlatPager(nil)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatalf("list %s: %v", containerName, err)
		}
		for _, b := range page.Segment.BlobItems {
			keys = append(keys, *b.Name)
		}
	}
	return keys
}

// fixture returns an empty container of its own for
// objectstoretest.RunState, the sink's container type over a plain client.
func (p *peer) fixture(t *testing.T, format string) objectstoretest.Fixture {
	t.Helper()
	name := newContainerName()
	p.createContainer(t, name)
	spec := p.spec(name, "exports", format, "none")
	layout, err := objectstore.NewLayout(&spec, "exports")
	if err != nil {
		t.Fatal(err)
	}
	c := &blobContainer{client: p.client(t, name), name: name, mode: v1alpha1.ProvisionExisting}
	return objectstoretest.Fixture{Bucket: c, Layout: layout,
		Reader: objectstoretest.Reader{Get: p.getter(t, name), Delete: p.deleter(t, name), Prefix: "exports", Format: format,
			Compression: "none"},
		Put: p.putter(t, name)}
}
