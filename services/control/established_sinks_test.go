package control_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

func postgresSink(ns, name string, ref *v1alpha1.DatabaseSecretReference) *v1alpha1.KollectDatabaseSink {
	return &v1alpha1.KollectDatabaseSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.KollectDatabaseSinkSpec{Type: v1alpha1.DatabasePostgres,
			Postgres: &v1alpha1.PostgresSink{Table: "rows", DatabaseRef: ref}}}
}

func bigQuerySink(ns, name string, ref *v1alpha1.SecretReference) *v1alpha1.KollectDatabaseSink {
	return &v1alpha1.KollectDatabaseSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.KollectDatabaseSinkSpec{Type: v1alpha1.DatabaseBigQuery,
			BigQuery: &v1alpha1.BigQuerySink{Dataset: "d", Table: "t", SecretRef: ref}}}
}

func TestEstablishedSecretReferencesOfDatabaseSinks(t *testing.T) {
	const flag = "--allow-cross-namespace-secret-refs"
	t.Run("the webhook refuses a databaseRef or bigquery.secretRef in another namespace, naming the flag", func(t *testing.T) {
		ns := webhookNamespace(t)
		for _, tc := range []struct {
			sink  *v1alpha1.KollectDatabaseSink
			field string
		}{
			{postgresSink(ns, "pg", &v1alpha1.DatabaseSecretReference{Name: "conn", Namespace: "kube-system"}), "spec.postgres.databaseRef.namespace"},
			{bigQuerySink(ns, "bq", &v1alpha1.SecretReference{Name: "creds", Namespace: "kube-system"}), "spec.bigquery.secretRef.namespace"},
		} {
			refused(t, tc.field, func() error { return shared.kube.Client.Create(t.Context(), tc.sink.DeepCopy()) }, tc.field)
			refused(t, tc.field, func() error { return shared.kube.Client.Create(t.Context(), tc.sink.DeepCopy()) }, flag)
		}
	})
	t.Run("control refuses a databaseRef in another namespace at reconcile", func(t *testing.T) {
		ns := namespace(t)
		s := postgresSink(ns, "pg", &v1alpha1.DatabaseSecretReference{Name: "conn", Namespace: "kube-system"})
		create(t, s)
		eventually(t, "SecretRefDenied", func() error {
			return hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
				v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretRefDenied)
		})
		if c := fmt.Sprint(s.Status.Conditions); !strings.Contains(c, "spec.postgres.databaseRef.namespace") || !strings.Contains(c, flag) {
			t.Errorf("conditions %s do not name the field and the flag", c)
		}
		if err := noEntry(t, ref(busv1.KindDatabaseSink, ns, "pg")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the exporters see the canonical spellings: the default key and the top-level secretRef", func(t *testing.T) {
		ns := namespace(t)
		create(t, sealed(t, postgresSink(ns, "pg", &v1alpha1.DatabaseSecretReference{Name: "conn"})))
		create(t, sealed(t, bigQuerySink(ns, "bq", &v1alpha1.SecretReference{Name: "creds"})))
		var pg, bq busv1.SinkConfig
		eventually(t, "entries", func() error {
			if err := configEntry(t, ref(busv1.KindDatabaseSink, ns, "pg"), &pg); err != nil {
				return err
			}
			return configEntry(t, ref(busv1.KindDatabaseSink, ns, "bq"), &bq)
		})
		var pgSpec, bqSpec v1alpha1.KollectDatabaseSinkSpec
		if err := json.Unmarshal(pg.Spec, &pgSpec); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(bq.Spec, &bqSpec); err != nil {
			t.Fatal(err)
		}
		if k := pgSpec.Postgres.DatabaseRef.Key; k != "dsn" {
			t.Errorf("databaseRef key %q, want dsn", k)
		}
		if bqSpec.SecretRef == nil || bqSpec.SecretRef.Name != "creds" || bqSpec.BigQuery.SecretRef != nil {
			t.Errorf("secretRef %+v, bigquery.secretRef %+v: want the top-level one only", bqSpec.SecretRef, bqSpec.BigQuery.SecretRef)
		}
	})
}

func TestATypelessSnapshotSinkReachesTheExportersCanonical(t *testing.T) {
	ns := namespace(t)
	s := &v1alpha1.KollectSnapshotSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git"},
		Spec: v1alpha1.KollectSnapshotSinkSpec{Git: &v1alpha1.GitSink{BlockLocation: v1alpha1.BlockLocation{
			Endpoint: "https://git.example.com/inv.git", PathTemplate: "c/{namespace}/{name}{extension}"}}}}
	create(t, s)
	var cfg busv1.SinkConfig
	eventually(t, "entry", func() error { return configEntry(t, ref(busv1.KindSnapshotSink, ns, "git"), &cfg) })
	var spec v1alpha1.KollectSnapshotSinkSpec
	if err := json.Unmarshal(cfg.Spec, &spec); err != nil {
		t.Fatal(err)
	}
	if cfg.Type != "git" || spec.Type != "git" || spec.Endpoint != "https://git.example.com/inv.git" ||
		spec.PathTemplate != "c/{namespace}/{name}{extension}" || spec.Git.Endpoint != "" || spec.Git.PathTemplate != "" {
		t.Errorf("config type %q, spec %+v: want the canonical spelling", cfg.Type, spec)
	}
}

func TestSinkOptions(t *testing.T) {
	withOptions := func(ns, name string, options map[string]string) *v1alpha1.KollectDatabaseSink {
		s := postgresSink(ns, name, nil)
		s.Spec.Endpoint = "postgres://db.example.com:5432/inventory"
		s.Spec.Options = options
		return s
	}
	t.Run("the webhook refuses a credential-looking name and an option the type does not honour", func(t *testing.T) {
		ns := webhookNamespace(t)
		refused(t, "credential", func() error {
			return shared.kube.Client.Create(t.Context(), withOptions(ns, "pg", map[string]string{"password": "x"}))
		}, "spec.options.password: the name looks like a credential")
		refused(t, "unknown", func() error {
			return shared.kube.Client.Create(t.Context(), withOptions(ns, "pg", map[string]string{"work_mem": "4MB"}))
		}, "spec.options.work_mem: not an option of postgres sinks")
	})
	t.Run("honoured options reach the exporters", func(t *testing.T) {
		ns := webhookNamespace(t)
		create(t, withOptions(ns, "pg", map[string]string{"statement_timeout": "30000"}))
		var cfg busv1.SinkConfig
		eventually(t, "entry", func() error { return configEntry(t, ref(busv1.KindDatabaseSink, ns, "pg"), &cfg) })
		var spec v1alpha1.KollectDatabaseSinkSpec
		if err := json.Unmarshal(cfg.Spec, &spec); err != nil {
			t.Fatal(err)
		}
		if spec.Options["statement_timeout"] != "30000" {
			t.Errorf("options %v, want statement_timeout 30000", spec.Options)
		}
	})
	t.Run("control refuses an unknown option at reconcile", func(t *testing.T) {
		ns := namespace(t)
		s := withOptions(ns, "pg", map[string]string{"work_mem": "4MB"})
		create(t, s)
		eventually(t, "InvalidSpec", func() error {
			return hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
				v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonInvalidSpec)
		})
	})
}

func TestTheWebhookChecksTheEndpointOfAGitBlock(t *testing.T) {
	ns := webhookNamespace(t)
	s := &v1alpha1.KollectSnapshotSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git"},
		Spec: v1alpha1.KollectSnapshotSinkSpec{Git: &v1alpha1.GitSink{BlockLocation: v1alpha1.BlockLocation{
			Endpoint: "https://192.168.1.10/inv.git"}}}}
	refused(t, "denial", func() error { return shared.kube.Client.Create(t.Context(), s.DeepCopy()) }, "in-cluster sinks are not allowed")
}
