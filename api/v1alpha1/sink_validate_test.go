package v1alpha1_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"kollect.dev/kollect/api/v1alpha1"
)

func TestSinkSpecValidate(t *testing.T) {
	git := func(endpoint string) *v1alpha1.KollectSnapshotSinkSpec {
		return &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGit, Endpoint: endpoint}
	}
	gitlab := func(edit func(*v1alpha1.GitLabSink)) *v1alpha1.KollectSnapshotSinkSpec {
		g := &v1alpha1.GitLabSink{Project: "team/x"}
		edit(g)
		return &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGitLab, Endpoint: "https://gitlab.example.com", GitLab: g}
	}
	for _, tc := range []struct {
		name string
		spec interface {
			Validate() field.ErrorList
		}
		want string // "" means valid; else the field and a part of the message
	}{
		{"an https git endpoint is valid", git("https://git.example.com/r.git"), ""},
		{"an ssh git endpoint is valid", git("ssh://git@git.example.com/r.git"), ""},
		{"an scp-like git endpoint is valid", git("git@git.example.com:team/r.git"), ""},
		{"a file:// git endpoint is valid in form (the egress policy decides)", git("file:///srv/git/r.git"), ""},
		{"a git:// endpoint is refused", git("git://git.example.com/r.git"), "spec.endpoint: Invalid value: \"git://\": a git endpoint must be"},
		{"a bare path is refused", git("/srv/git/r.git"), "spec.endpoint"},
		{"a typeless git block implies git", &v1alpha1.KollectSnapshotSinkSpec{Git: &v1alpha1.GitSink{
			BlockLocation: v1alpha1.BlockLocation{Endpoint: "https://git.example.com/r.git"}}}, ""},
		{"a snapshot sink without type or implying block is refused", &v1alpha1.KollectSnapshotSinkSpec{Endpoint: "https://x/r.git"}, "spec.type: Required value"},
		{"an unknown snapshot type is refused", &v1alpha1.KollectSnapshotSinkSpec{Type: "ftp", Endpoint: "ftp://x"}, "spec.type: Unsupported value"},
		{"an objectStore block on a git sink is refused", &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGit,
			Endpoint: "https://x/r.git", ObjectStore: &v1alpha1.ObjectStoreSink{}}, "spec.objectStore: Forbidden"},
		{"a gitlab sink needs its block", &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGitLab, Endpoint: "https://gitlab.com"}, "spec.gitlab: Required value"},
		{"a gitlab branch with .. is refused, naming the field", gitlab(func(g *v1alpha1.GitLabSink) { g.Branch = "a..b" }),
			`spec.gitlab.branch: Invalid value: "a..b": not a valid branch name`},
		{"a gitlab branch with a leading slash is refused", gitlab(func(g *v1alpha1.GitLabSink) { g.Branch = "/main" }), "spec.gitlab.branch"},
		{"a gitlab branch outside the pattern is refused", gitlab(func(g *v1alpha1.GitLabSink) { g.Branch = "main branch" }), "spec.gitlab.branch"},
		{"a gitlab target branch with .. is refused", gitlab(func(g *v1alpha1.GitLabSink) {
			g.MergeRequest = &v1alpha1.GitLabMergeRequest{Mode: "merge_request", TargetBranch: "re..lease"}
		}), "spec.gitlab.mergeRequest.targetBranch"},
		{"a gitlab branch prefix with a leading slash is refused", gitlab(func(g *v1alpha1.GitLabSink) {
			g.MergeRequest = &v1alpha1.GitLabMergeRequest{Mode: "merge_request", BranchPrefix: "/kollect/"}
		}), "spec.gitlab.mergeRequest.branchPrefix"},
		{"gitlab branches of the pattern are valid", gitlab(func(g *v1alpha1.GitLabSink) {
			g.Branch = "release/v1.2"
			g.MergeRequest = &v1alpha1.GitLabMergeRequest{Mode: "merge_request", TargetBranch: "main", BranchPrefix: "kollect/"}
		}), ""},
		{"a gitlab endpoint with a path is valid", &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGitLab,
			Endpoint: "https://example.com/gitlab/api/v4", GitLab: &v1alpha1.GitLabSink{Project: "team/x"}}, ""},
		{"a gitlab endpoint with a query is refused", &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGitLab,
			Endpoint: "https://gitlab.com/?private_token=x", GitLab: &v1alpha1.GitLabSink{Project: "team/x"}}, "a gitlab endpoint must be"},
		{"a gitlab endpoint with credentials is refused", &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGitLab,
			Endpoint: "https://u:p@gitlab.com", GitLab: &v1alpha1.GitLabSink{Project: "team/x"}}, "a gitlab endpoint must be"},
		{"a gitlab endpoint without a host is refused", &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGitLab,
			Endpoint: "https:///x", GitLab: &v1alpha1.GitLabSink{Project: "team/x"}}, "a gitlab endpoint must be"},
		{"an s3 endpoint without bucket is refused", &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotS3, Endpoint: "s3://"}, "an s3 endpoint must be"},
		{"a gs:// endpoint is valid for gcs", &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGCS, Endpoint: "gs://b/p"}, ""},
		{"an unknown commit message placeholder is refused", &v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGit,
			Endpoint: "https://x/r.git", Git: &v1alpha1.GitSink{CommitMessage: "export {team}"}}, "spec.git.commitMessage"},
		{"a postgres sink with a mongodb endpoint is refused", &v1alpha1.KollectDatabaseSinkSpec{Type: v1alpha1.DatabasePostgres,
			Endpoint: "mongodb://db:27017", Postgres: &v1alpha1.PostgresSink{Table: "t"}}, "a postgres endpoint must be"},
		{"a postgres sink without a way to find its server is refused", &v1alpha1.KollectDatabaseSinkSpec{Type: v1alpha1.DatabasePostgres,
			Postgres: &v1alpha1.PostgresSink{Table: "t"}}, "need an endpoint, a secretRef or a databaseRef"},
		{"a mongodb sink without its block is refused", &v1alpha1.KollectDatabaseSinkSpec{Type: v1alpha1.DatabaseMongoDB,
			Endpoint: "mongodb://db:27017"}, "spec.mongodb: Required value"},
		{"a bigquery sink needs no endpoint", &v1alpha1.KollectDatabaseSinkSpec{Type: v1alpha1.DatabaseBigQuery,
			BigQuery: &v1alpha1.BigQuerySink{Dataset: "d", Table: "t"}}, ""},
		{"a kafka sink with endpoint and brokers is refused", &v1alpha1.KollectEventSinkSpec{Type: v1alpha1.EventKafka,
			Endpoint: "kafka:9092", Kafka: &v1alpha1.KafkaSink{Brokers: []string{"k:9092"}, Topic: "t"}}, "set exactly one of endpoint and kafka.brokers"},
		{"a nats sink with a nats:// endpoint is valid", &v1alpha1.KollectEventSinkSpec{Type: v1alpha1.EventNATS,
			Endpoint: "nats://nats:4222", NATS: &v1alpha1.NATSSink{Subject: "s"}}, ""},
		{"a nats sink with an http endpoint is refused", &v1alpha1.KollectEventSinkSpec{Type: v1alpha1.EventNATS,
			Endpoint: "http://nats:4222", NATS: &v1alpha1.NATSSink{Subject: "s"}}, "a nats endpoint must be"},
		{"a kafka block on a nats sink is refused", &v1alpha1.KollectEventSinkSpec{Type: v1alpha1.EventNATS,
			NATS: &v1alpha1.NATSSink{URL: "nats://n:4222", Subject: "s"}, Kafka: &v1alpha1.KafkaSink{Topic: "t"}}, "spec.kafka: Forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := tc.spec.Validate()
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Fatalf("Validate() = %v, want valid", errs)
			case tc.want != "" && !strings.Contains(errs.ToAggregate().Error(), tc.want):
				t.Fatalf("Validate() = %v, want an error containing %q", errs, tc.want)
			}
		})
	}
}

func TestEndpointsListEveryAddressField(t *testing.T) {
	snap := &v1alpha1.KollectSnapshotSinkSpec{Endpoint: "https://a/r.git",
		Git: &v1alpha1.GitSink{BlockLocation: v1alpha1.BlockLocation{Endpoint: "https://b/r.git"}}}
	event := &v1alpha1.KollectEventSinkSpec{Endpoint: "k0:9092", Kafka: &v1alpha1.KafkaSink{Brokers: []string{"k1:9092", "k2:9092"}},
		NATS: &v1alpha1.NATSSink{URL: "nats://n:4222"}}
	db := &v1alpha1.KollectDatabaseSinkSpec{Endpoint: "postgres://db/x"}
	for _, tc := range []struct {
		name string
		got  []string
		want string
	}{
		{"a snapshot sink lists its endpoint and its block's", snap.Endpoints(), "https://a/r.git https://b/r.git"},
		{"an event sink lists its endpoint, brokers and url", event.Endpoints(), "k0:9092 k1:9092 k2:9092 nats://n:4222"},
		{"a database sink lists its endpoint", db.Endpoints(), "postgres://db/x"},
		{"an empty spec lists nothing", (&v1alpha1.KollectEventSinkSpec{}).Endpoints(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(tc.got, " "); got != tc.want {
				t.Errorf("Endpoints() = %q, want %q", got, tc.want)
			}
		})
	}
}
