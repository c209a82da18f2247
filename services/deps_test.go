// Package services_test holds checks across every service.
package services_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCoreServicesLinkNoSinkSDK keeps cloud and database SDKs out of control,
// the collector, the aggregator and the query service: only exporters touch external systems
// (STYLE.md), and the binaries stay small.
func TestCoreServicesLinkNoSinkSDK(t *testing.T) {
	forbidden := []string{"cloud.google.com/go/storage", "cloud.google.com/go/bigquery", "github.com/aws/aws-sdk-go-v2/service",
		"github.com/jackc/pgx", "go.mongodb.org/mongo-driver", "github.com/go-git/go-git", "github.com/twmb/franz-go",
		"github.com/segmentio/kafka-go", "google.golang.org/api", "github.com/Azure/azure-sdk-for-go/sdk"}
	for _, svc := range []string{"control", "collector", "aggregator", "query"} {
		t.Run(svc+" links no sink SDK", func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "kollect.dev/kollect/services/"+svc+"/...").CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v\n%s", err, out)
			}
			deps := strings.Fields(string(out))
			if len(deps) < 50 {
				t.Fatalf("go list -deps printed only %d packages; the check would prove nothing", len(deps))
			}
			for _, dep := range deps {
				for _, f := range forbidden {
					if strings.HasPrefix(dep, f) {
						t.Errorf("%s links %s", svc, dep)
					}
				}
			}
		})
	}
}
