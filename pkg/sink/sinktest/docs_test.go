package sinktest

import (
	"strings"
	"testing"
)

type testSpec struct {
	Endpoint string `json:"endpoint"`
}

func TestDecodeDocObjects(t *testing.T) {
	page := "# A page\n\n```yaml\napiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: team-a}\nstringData: {token: abc}\n---\n" +
		"apiVersion: kollect.dev/v1alpha1\nkind: KollectEventSink\nmetadata: {name: feed, namespace: team-a}\nspec: {endpoint: nats://x}\n```\n\n" +
		"```sh\necho not yaml\n```\n\n```yaml\nkind: KollectInventory\nmetadata: {name: apps}\nspec: {eventSinkRefs: [feed]}\n```\n"
	objs, err := decodeDocObjects[testSpec]([]byte(page), "KollectEventSink")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 {
		t.Fatalf("got %d objects, want 3: %+v", len(objs), objs)
	}
	if objs[0].Kind != "Secret" || objs[0].Metadata.Namespace != "team-a" || objs[0].StringData["token"] != "abc" {
		t.Errorf("Secret decoded as %+v", objs[0])
	}
	if objs[1].Metadata.Name != "feed" || objs[1].Spec.Endpoint != "nats://x" {
		t.Errorf("sink decoded as %+v", objs[1])
	}
	if objs[2].Kind != "KollectInventory" || objs[2].Spec != (testSpec{}) {
		t.Errorf("an object of another kind got a spec: %+v", objs[2])
	}

	_, err = decodeDocObjects[testSpec]([]byte("```yaml\nkind: KollectEventSink\nmetadata: {name: feed}\nspec: {endpiont: nats://x}\n```\n"), "KollectEventSink")
	if err == nil || !strings.Contains(err.Error(), `unknown field "endpiont"`) {
		t.Errorf("a misspelled spec field gave %v, want an unknown field error", err)
	}
	if _, err := decodeDocObjects[testSpec]([]byte("no blocks"), "KollectEventSink"); err == nil {
		t.Error("a page without yaml blocks gave no error")
	}
}
