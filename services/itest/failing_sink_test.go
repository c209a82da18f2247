package itest

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// TestPermanentlyFailingSinkDegradesOnlyItsBinding binds an inventory to
// an S3 sink whose Secret holds a wrong secret key (the server checks the
// SigV4 signature) and to Git: the S3 binding fails and degrades the
// inventory while Git keeps exporting every change, with current
// checksums in status.
func TestPermanentlyFailingSinkDegradesOnlyItsBinding(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "failing", nil)
	repo := newRepo(t, "failing")
	s3 := s3Server(t)
	s3.CreateBucket(t, "failing")
	secret(t, ns, "s3", map[string]string{"accessKeyID": s3.AccessKey, "secretAccessKey": "not-" + s3.SecretKey})
	apply(t, deploymentCRs+`
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: $ns}
spec: {type: git, endpoint: $git}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: bucket, namespace: $ns}
spec:
  type: s3
  endpoint: $s3/failing
  secretRef: {name: s3}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  snapshotSinkRefs: [git, bucket]
`, "$ns", ns, "$git", repo.URL, "$s3", s3.Endpoint)
	d := deployment{ns: ns, name: "api", images: []string{"api:1"}, replicas: 1}.create(t)
	for i, replicas := range []int{1, 2} {
		if i > 0 {
			update(t, ns, "api", func(d *appsv1.Deployment) { n := int32(replicas); d.Spec.Replicas = &n })
		}
		rows := []busv1.Row{deploymentRow(ns, "deployments", d, map[string]any{"images": []any{"api:1"}, "replicas": replicas})}
		repo.waitDocument(t, "inventory/"+ns+"/apps.yaml", rows, ns+"/apps")
		sum := checksum(t, rows)
		eventually(t, waitFor, fmt.Sprintf("status with %d replicas", replicas), func() error {
			st, err := statusOf(t, "KollectInventory", ns, "apps")
			if err != nil {
				return err
			}
			if err := hasCondition(st.Conditions, v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonExportRejected); err != nil {
				return err
			}
			git, err := sinkExport(st, "snapshot/git")
			if err != nil {
				return err
			}
			if err := hasCondition(git.Conditions, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonExported); err != nil {
				return fmt.Errorf("snapshot/git: %w", err)
			}
			if git.LastChecksum != sum {
				return fmt.Errorf("snapshot/git lastChecksum %s, want %s", git.LastChecksum, sum)
			}
			bad, err := sinkExport(st, "snapshot/bucket")
			if err != nil {
				return err
			}
			if bad.LastChecksum != "" {
				return fmt.Errorf("snapshot/bucket lastChecksum %s, want none", bad.LastChecksum)
			}
			return hasCondition(bad.Conditions, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonExportRejected)
		}, ns+"/apps")
		if keys, err := s3Keys(t.Context(), t, "failing"); err != nil || len(keys) != 0 {
			t.Errorf("the failing bucket holds %v (%v), want nothing", keys, err)
		}
	}
}
