package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/policy"
)

// SinkReconciler compiles the sinks of one family into config entries (no
// secret material: exporters read the Secret themselves) and probes them.
type SinkReconciler struct {
	*Deps
	// Family is the sink family this reconciler handles.
	Family busv1.Family
}

// Reconcile runs the steps: Secret reference and endpoint policy, the
// requester's right to the Secrets (requesterAllows), TLS
// condition, write the entry, connection test, fold exporter reports. A
// refused Secret reference or endpoint deletes the entry (no exporter sees
// the sink) and is never probed.
func (r *SinkReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	key := ref(r.Family.SinkKind(), req.Namespace, req.Name)
	var v sinkView
	return run(ctx, r.Deps, req, newSink(r.Family).(statusObject), entry[statusObject]{ref: &key}, //nolint:forcetypeassert // every sink kind is a statusObject
		func(ctx context.Context, obj statusObject, _ *ctrl.Result) error {
			v = viewOf(obj)
			r.tlsCondition(obj, v)
			if err := r.allowed(v); err != nil {
				return err
			}
			return r.requesterAllows(ctx, obj)
		},
		func(ctx context.Context, obj statusObject, _ *ctrl.Result) error {
			if err := r.putConfig(ctx, key, sinkConfig(v)); err != nil {
				return err
			}
			ready(obj, "sink config written")
			return nil
		},
		func(ctx context.Context, obj statusObject, res *ctrl.Result) (err error) {
			*res, err = r.connection(ctx, obj, v)
			if c := meta.FindStatusCondition(obj.GetConditions(), v1alpha1.ConditionConnectionVerified); c != nil &&
				c.Status == metav1.ConditionFalse && notReadyReasons[c.Reason] {
				notReady(obj, c.Reason, c.Message)
			}
			return err
		})
}

// allowed applies the operator's policy to the sink: its Secret
// references, options and endpoints.
func (r *SinkReconciler) allowed(v sinkView) error {
	if msg := policy.SecretRefsViolation(v.obj.GetNamespace(), v.secretRefs, r.Policy.AllowCrossNamespaceSecretRefs); msg != "" {
		return &v1alpha1.ReasonError{Reason: v1alpha1.ReasonSecretRefDenied, Err: errors.New(msg)}
	}
	if msg := v.specViolation(); msg != "" {
		return &v1alpha1.ReasonError{Reason: v1alpha1.ReasonInvalidSpec, Err: errors.New(msg)}
	}
	if msg := policy.OptionsViolation(v.typ, v.common.Options); msg != "" {
		return &v1alpha1.ReasonError{Reason: v1alpha1.ReasonInvalidSpec, Err: errors.New(msg)}
	}
	if msg := policy.EndpointViolation(r.Policy.Egress, v.endpoints); msg != "" {
		return &v1alpha1.ReasonError{Reason: v1alpha1.ReasonEndpointDenied, Err: errors.New(msg)}
	}
	return nil
}

// notReadyReasons are the connection-test failures that also make a sink
// Ready=False: the exporter refuses to build it at all.
var notReadyReasons = map[string]bool{v1alpha1.ReasonSecretResolveFailed: true,
	v1alpha1.ReasonSecretRefDenied: true, v1alpha1.ReasonCredentialsDenied: true}

func sinkConfig(v sinkView) busv1.SinkConfig {
	spec, _ := json.Marshal(v.spec) // typed API structs always encode
	cluster := v.common.Cluster
	if cluster == "" {
		cluster = "default"
	}
	return busv1.SinkConfig{Family: v.family, Type: v.typ, Namespace: v.obj.GetNamespace(), Name: v.obj.GetName(),
		UID: string(v.obj.GetUID()), Generation: v.obj.GetGeneration(), Cluster: cluster, Spec: spec}
}

func (r *SinkReconciler) tlsCondition(obj statusObject, v sinkView) {
	if v.common.TLS != nil && v.common.TLS.InsecureSkipVerify {
		set(obj, v1alpha1.ConditionTLSInsecure, metav1.ConditionTrue, v1alpha1.ReasonInsecureSkipVerify,
			"spec.tls.insecureSkipVerify is true: certificates are not verified")
		return
	}
	remove(obj, v1alpha1.ConditionTLSInsecure)
}

// connection probes the sink when connectionTest is on and the current
// generation was not probed yet, when a transient failure is older than
// ProbeRetry, or when the test-connection annotation asks for it; the
// annotation is removed after the probe.
func (r *SinkReconciler) connection(ctx context.Context, obj statusObject, v sinkView) (ctrl.Result, error) {
	asked := v.obj.GetAnnotations()[v1alpha1.AnnotationTestConnection] == "true"
	enabled := v.common.ConnectionTest == nil || *v.common.ConnectionTest
	if !asked && !enabled {
		foldConnection(obj, r.Reports, v.family)
		return ctrl.Result{}, nil
	}
	if wait := r.probeWait(obj); !asked && wait != 0 {
		// Not due yet: come back when it is (a status event may have taken
		// the place of the requeue the failed probe asked for).
		foldConnection(obj, r.Reports, v.family)
		return ctrl.Result{RequeueAfter: max(wait, 0)}, nil
	}
	sink := busv1.SinkRef{Family: v.family, Namespace: v.obj.GetNamespace(), Name: v.obj.GetName()}
	reply, err := r.Prober.Probe(ctx, sink, v.obj.GetGeneration())
	if err != nil {
		return ctrl.Result{}, err
	}
	setConnection(obj, reply)
	if asked {
		// Patch a copy: the in-memory status is patched once, by finish.
		cp := v.obj.DeepCopyObject().(client.Object)
		patch := client.MergeFrom(v.obj.DeepCopyObject().(client.Object))
		a := cp.GetAnnotations()
		delete(a, v1alpha1.AnnotationTestConnection)
		cp.SetAnnotations(a)
		if err := r.Client.Patch(ctx, cp, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("remove annotation %s from %s: %w", v1alpha1.AnnotationTestConnection, sink.BindingName(), err)
		}
	}
	if !reply.OK && !reply.Permanent {
		if reply.Reason == v1alpha1.ReasonSinkConfigPending {
			return ctrl.Result{RequeueAfter: configPendingRetry}, nil
		}
		return ctrl.Result{RequeueAfter: r.Policy.ProbeRetry}, nil
	}
	return ctrl.Result{}, nil
}

// configPendingRetry is how soon a probe that found the exporters without
// the sink's config (control had only just written it) is sent again.
const configPendingRetry = 2 * time.Second

// probeWait is how long until the sink needs a probe: 0 when never probed
// at this generation, when a transient failure is older than ProbeRetry or
// when the exporters lacked the config longer than configPendingRetry ago;
// negative when no probe is due at all (a success or a permanent failure).
func (r *SinkReconciler) probeWait(obj statusObject) time.Duration {
	c := meta.FindStatusCondition(obj.GetConditions(), v1alpha1.ConditionConnectionVerified)
	if c == nil || c.ObservedGeneration != obj.GetGeneration() {
		return 0
	}
	if c.Status != metav1.ConditionFalse {
		return -1
	}
	retry := r.Policy.ProbeRetry
	switch c.Reason {
	case v1alpha1.ReasonConnectionTestFailed:
	case v1alpha1.ReasonSinkConfigPending:
		retry = configPendingRetry
	default:
		return -1
	}
	return max(retry-r.Now().Sub(c.LastTransitionTime.Time), 0)
}

// setConnection sets ConnectionVerified from a probe reply.
func setConnection(obj statusObject, reply busv1.ConnectionTestReply) {
	if reply.OK {
		set(obj, v1alpha1.ConditionConnectionVerified, metav1.ConditionTrue, v1alpha1.ReasonConnectionOK,
			fmt.Sprintf("probe succeeded in %dms", reply.LatencyMs))
		return
	}
	reason := reply.Reason
	if reason == "" {
		reason = v1alpha1.ReasonConnectionTestFailed
	}
	set(obj, v1alpha1.ConditionConnectionVerified, metav1.ConditionFalse, reason, oneLine(reply.Message))
}

// foldConnection applies the exporter's latest connection report for the
// current generation when it is newer than what the condition says (a probe
// reply or an earlier report), so the two never flip-flop.
func foldConnection(obj statusObject, rep Reporter, f busv1.Family) {
	c := meta.FindStatusCondition(obj.GetConditions(), v1alpha1.ConditionConnectionVerified)
	for _, r := range current(rep, obj, f.SinkKind(), f.Exporter()) {
		if r.Connection != nil && (c == nil || r.ObservedAt.After(c.LastTransitionTime.Time)) {
			setConnection(obj, busv1.ConnectionTestReply{OK: r.Connection.OK, LatencyMs: r.Connection.LatencyMs, Outcome: r.Connection.Outcome})
		}
	}
}
