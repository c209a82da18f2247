package azureblob

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/sink"
)

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		name, raw string
		want      endpoint
	}{
		{"an azblob URL is a public-cloud account, container and prefix", "azblob://acme/lake/kollect/prod",
			endpoint{serviceURL: "https://acme.blob.core.windows.net", account: "acme", container: "lake", prefix: "kollect/prod"}},
		{"an azblob URL may have no prefix", "azblob://acme/lake/",
			endpoint{serviceURL: "https://acme.blob.core.windows.net", account: "acme", container: "lake"}},
		{"a blob service host names the account in its first label", "https://acme.blob.core.chinacloudapi.cn/lake/a",
			endpoint{serviceURL: "https://acme.blob.core.chinacloudapi.cn", account: "acme", container: "lake", prefix: "a"}},
		{"another host is path-style: the account is the first path segment", "http://127.0.0.1:10000/devstoreaccount1/lake/a/b",
			endpoint{serviceURL: "http://127.0.0.1:10000/devstoreaccount1", account: "devstoreaccount1", container: "lake", prefix: "a/b"}},
		{"an in-cluster emulator name is path-style too", "http://azurite.storage.svc:10000/devstoreaccount1/lake",
			endpoint{serviceURL: "http://azurite.storage.svc:10000/devstoreaccount1", account: "devstoreaccount1", container: "lake"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseEndpoint(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(endpoint{})); d != "" {
				t.Errorf("endpoint (-want +got):\n%s", d)
			}
		})
	}
	refused := []struct{ raw, why string }{
		{"s3://acme/lake", "want azblob://"},
		{"azblob://acme", "no container"},
		{"azblob://acme/lake?sv=1&sig=secret", "no query"},
		{"https://acme.blob.core.windows.net/", "no container"},
		{"http://127.0.0.1:10000/devstoreaccount1", "no container"},
		{"https://user:pw@acme.blob.core.windows.net/lake", "must not carry credentials"},
		{"azblob://Acme/lake", `account "Acme"`},
		{"azblob://acme/Lake_1", `container "Lake_1"`},
		{"azblob://acme/a--b", `container "a--b"`},
	}
	for _, tt := range refused {
		t.Run("the endpoint "+tt.raw+" is refused", func(t *testing.T) {
			_, err := parseEndpoint(tt.raw)
			if !sink.IsPermanent(err) || !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), "endpoint") {
				t.Fatalf("parseEndpoint returned %v, want a permanent error naming the endpoint and saying %q", err, tt.why)
			}
			if strings.Contains(err.Error(), "sig=secret") || strings.Contains(err.Error(), ":pw@") {
				t.Fatalf("the error shows a credential: %v", err)
			}
		})
	}
}
