package testenv_test

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"kollect.dev/kollect/pkg/testenv"
)

func TestAzuriteSignedWritesAndConditions(t *testing.T) {
	a := timed(t, "azurite", func() *testenv.Azurite { return testenv.StartAzurite(t) })
	ctx := t.Context()
	client := func(key string) *container.Client {
		cred, err := container.NewSharedKeyCredential(testenv.AzuriteAccount, key)
		if err != nil {
			t.Fatal(err)
		}
		c, err := container.NewClientWithSharedKeyCredential(a.AccountURL()+"/inventory", cred, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := client(testenv.AzuriteKey)
	if _, err := c.Create(ctx, nil); err != nil {
		t.Fatalf("create container: %v", err)
	}
	put := func(c *container.Client, cond *blob.ModifiedAccessConditions) error {
		_, err := c.NewBlockBlobClient("exports/pods.json").Upload(ctx, streaming.NopCloser(bytes.NewReader([]byte(`{"pods":1}`))),
			&blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: cond}})
		return err
	}
	if err := put(c, &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}); err != nil {
		t.Fatalf("put a new blob: %v", err)
	}
	if err := put(c, &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}); status(err) != http.StatusConflict {
		t.Fatalf("If-None-Match: * on an existing blob returned %v, want 409", err)
	}
	if err := put(c, &blob.ModifiedAccessConditions{IfMatch: to.Ptr(azcore.ETag(`"0x0"`))}); status(err) != http.StatusPreconditionFailed {
		t.Fatalf("If-Match on another ETag returned %v, want 412", err)
	}
	wrong := "A" + strings.TrimPrefix(testenv.AzuriteKey, testenv.AzuriteKey[:1])
	if err := put(client(wrong), nil); status(err) != http.StatusForbidden {
		t.Fatalf("a put signed with another key returned %v, want 403", err)
	}
	addr := strings.TrimPrefix(a.URL, "http://")
	if err := a.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	requireClosed(t, addr)
}

func status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}
