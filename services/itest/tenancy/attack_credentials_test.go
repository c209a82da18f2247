package tenancy

import (
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// unauthorized answers as a server that wants credentials.
func unauthorized(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
	http.Error(w, "authentication required", http.StatusUnauthorized)
}

// Endpoints team-a controls, one per attack so that each guard sees its
// own.
var (
	borrowedGit          = lazyRecorder(func() (*recorder, error) { return startHTTPRecorder("borrowed-git", "127.0.0.1", unauthorized) })
	borrowedGitAdmission = lazyRecorder(func() (*recorder, error) {
		return startHTTPRecorder("borrowed-git-admission", "127.0.0.1", unauthorized)
	})
	borrowedPostgres = lazyRecorder(func() (*recorder, error) { return startTCPRecorder("borrowed-postgres", "127.0.0.1", pgGreet) })
	borrowedNATS     = lazyRecorder(func() (*recorder, error) { return startTCPRecorder("borrowed-nats", "127.0.0.1", natsGreet) })
	ambientS3        = lazyRecorder(func() (*recorder, error) { return startHTTPRecorder("ambient-s3", "127.0.0.1", nil) })
	externalGCS      = lazyRecorder(func() (*recorder, error) { return startHTTPRecorder("external-gcs", "127.0.0.1", nil) })
)

// sinkYAML is a sink of team-a: $kind, $name, then the spec's fields in
// $spec (flow style), and $labels.
const sinkYAML = `
apiVersion: kollect.dev/v1alpha1
kind: $kind
metadata: {name: $name, namespace: team-a, labels: $labels}
spec: $spec
`

// sink renders sinkYAML's variables, with addr in place of $addr in spec;
// admission labels it for the webhook.
func sink(kind, name, spec, addr string, admission bool) []string {
	spec = strings.ReplaceAll(spec, "$addr", addr)
	labels := "{}"
	if admission {
		labels = `{` + labelAdmission + `: "on"}`
	}
	return []string{"$kind", kind, "$name", name, "$spec", spec, "$labels", labels}
}

// bindingYAML is an inventory of team-a bound to one sink.
const bindingYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: $name, namespace: team-a}
spec: {$refs: [$name]}
`

// sinkRefs is the inventory field binding each sink kind.
var sinkRefs = map[string]string{
	"KollectSnapshotSink": "snapshotSinkRefs", "KollectDatabaseSink": "databaseSinkRefs", "KollectEventSink": "eventSinkRefs",
}

// bind creates an inventory of team-a named after the sink and bound to
// it: it exports to the sink (retrying within a second) whatever the
// connection test does, as an attacker's inventory would.
func bind(t *testing.T, kind, name string) {
	t.Helper()
	apply(t, asAlice(t), bindingYAML, "$name", name, "$refs", sinkRefs[kind])
}

// borrowed is the secretRef of every cross-namespace attack: team-b's
// canary Secret.
const borrowed = `secretRef: {namespace: team-b, name: canary}`

func credentialVectors() []vector {
	cross := []struct {
		family, kind, name, spec string
		endpoint                 func(*testing.T) *recorder
	}{
		{"Git", "KollectSnapshotSink", "borrowed-git", `{type: git, endpoint: "http://$addr/victim.git", git: {auth: {type: token}}, ` + borrowed + `}`, borrowedGit},
		{"PostgreSQL", "KollectDatabaseSink", "borrowed-postgres", `{type: postgres, endpoint: "postgres://$addr/payments?sslmode=disable", postgres: {table: rows}, ` + borrowed + `}`, borrowedPostgres},
		{"NATS", "KollectEventSink", "borrowed-nats", `{type: nats, endpoint: "nats://$addr", nats: {subject: inventory}, ` + borrowed + `}`, borrowedNATS},
	}
	var out []vector
	for _, tc := range cross {
		out = append(out, vector{"a " + tc.family + " sink cannot send team-b's Secret to team-a's endpoint", func(t *testing.T) {
			r := tc.endpoint(t)
			apply(t, asAlice(t), sinkYAML, sink(tc.kind, tc.name, tc.spec, r.addr, false)...)
			bind(t, tc.kind, tc.name)
			waitRefused(t, tc.kind, teamA, tc.name, refuseSecretRef, canaryAt(allCanaries(), r))
		}})
	}
	return append(out,
		vector{"a sink naming team-b's Secret is denied by the webhook", func(t *testing.T) {
			r := borrowedGitAdmission(t)
			err := tryApply(t, asAlice(t), sinkYAML, sink("KollectSnapshotSink", "borrowed-git-admission",
				`{type: git, endpoint: "http://$addr/victim.git", git: {auth: {type: token}}, `+borrowed+`}`, r.addr, true)...)
			denied(t, err, denySecretRef)
		}},
		vector{"an S3 sink without secretRef does not run as the exporter's identity", func(t *testing.T) {
			r := ambientS3(t)
			apply(t, asAlice(t), sinkYAML, sink("KollectSnapshotSink", "ambient-s3",
				`{type: s3, endpoint: "http://$addr/inventory?region=us-east-1"}`, r.addr, false)...)
			bind(t, "KollectSnapshotSink", "ambient-s3")
			waitRefused(t, "KollectSnapshotSink", teamA, "ambient-s3", refuseAmbient, canaryAt([]string{ambientAccessKey, ambientSecretKey}, r))
		}},
		vector{"a GCS sink without secretRef does not run as the exporter's identity", func(t *testing.T) {
			apply(t, asAlice(t), sinkYAML, sink("KollectSnapshotSink", "ambient-gcs", `{type: gcs, endpoint: "gs://tenancy-ambient"}`, "", false)...)
			bind(t, "KollectSnapshotSink", "ambient-gcs")
			waitRefused(t, "KollectSnapshotSink", teamA, "ambient-gcs", refuseAmbient, canaryAt([]string{ambientGCSEmail}, tokens))
		}},
		vector{"GCS external_account credentials cannot read a local file or call the tenant's token URL", externalAccountVector},
	)
}

// externalAccountVector stores external_account credentials in team-a's
// own Secret: credential_source.file is the file standing for the
// exporter's ServiceAccount token, token_url the token recorder.
func externalAccountVector(t *testing.T) {
	c := asAlice(t)
	creds, err := externalAccount(ambientTokenURL+"/external/token", localFilePath)
	if err != nil {
		t.Fatal(err)
	}
	create(t, c, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "gcs-external"},
		Data: map[string][]byte{"credentials.json": creds}})
	r := externalGCS(t)
	// Through the webhook, which records alice (who may read her Secret)
	// as the requester: without a recorded requester control would refuse
	// the sink before the exporter sees the credentials (F6).
	apply(t, c, sinkYAML, sink("KollectSnapshotSink", "external-gcs",
		`{type: gcs, endpoint: "http://$addr/inventory", secretRef: {name: gcs-external}}`, r.addr, true)...)
	bind(t, "KollectSnapshotSink", "external-gcs")
	waitRefused(t, "KollectSnapshotSink", teamA, "external-gcs", refuseCredentialType, canaryAt([]string{localFile}, tokens, r))
}
