package testenv_test

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"

	"kollect.dev/kollect/pkg/testenv"
)

func TestGCSWriteReadAndPreconditions(t *testing.T) {
	srv := timed(t, "fake-gcs-server", func() *testenv.GCS { return testenv.StartGCS(t) })
	srv.CreateBucket(t, "inventory")
	t.Setenv("STORAGE_EMULATOR_HOST", srv.Host)
	ctx := t.Context()

	client, err := storage.NewClient(ctx)
	if err != nil {
		t.Fatalf("storage client: %v", err)
	}
	defer client.Close()
	obj := client.Bucket("inventory").Object("exports/pods.json")
	write := func(o *storage.ObjectHandle, content string) error {
		w := o.NewWriter(ctx)
		if _, err := io.WriteString(w, content); err != nil {
			return err
		}
		return w.Close()
	}
	if err := write(obj, `{"pods":1}`); err != nil {
		t.Fatalf("write object: %v", err)
	}
	r, err := obj.NewReader(ctx)
	if err != nil {
		t.Fatalf("open object: %v", err)
	}
	got, err := io.ReadAll(r)
	_ = r.Close() // a reader: nothing to lose
	if err != nil || string(got) != `{"pods":1}` {
		t.Fatalf("object = %q (read error %v)", got, err)
	}

	err = write(obj.If(storage.Conditions{DoesNotExist: true}), `{"pods":2}`)
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) || gerr.Code != http.StatusPreconditionFailed {
		t.Fatalf("overwrite with DoesNotExist: err = %v, want HTTP 412", err)
	}

	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	requireClosed(t, srv.Host)
}
