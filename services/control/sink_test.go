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

func TestSinkConfigEntry(t *testing.T) {
	t.Run("a sink entry carries the spec and the secret's name, never its content", func(t *testing.T) {
		ns := namespace(t)
		s := gitSink(ns, "git")
		s.Spec.SecretRef = &v1alpha1.SecretReference{Name: "git-creds"}
		create(t, sealed(t, s))
		var cfg busv1.SinkConfig
		eventually(t, "entry", func() error { return configEntry(t, ref(busv1.KindSnapshotSink, ns, "git"), &cfg) })
		var spec v1alpha1.KollectSnapshotSinkSpec
		if err := json.Unmarshal(cfg.Spec, &spec); err != nil {
			t.Fatal(err)
		}
		if cfg.Cluster != "default" || cfg.Type != "git" || spec.SecretRef.Name != "git-creds" || spec.Endpoint != s.Spec.Endpoint {
			t.Fatalf("entry = %+v, spec %+v", cfg, spec)
		}
	})
	tests := []struct{ name, endpoint string }{
		{"a sink on a private address is EndpointDenied", "https://10.1.2.3/inv.git"},
		{"a sink on loopback is EndpointDenied", "https://127.0.0.1:8443/inv.git"},
		{"a sink on a link-local address is EndpointDenied", "https://169.254.169.254/inv.git"},
		{"a sink on an in-cluster service name is EndpointDenied", "https://gitea.git.svc.cluster.local/inv.git"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := namespace(t)
			s := gitSink(ns, "git")
			s.Spec.Endpoint = tc.endpoint
			create(t, s)
			eventually(t, "EndpointDenied", func() error {
				return hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
					v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonEndpointDenied)
			})
			if err := noEntry(t, ref(busv1.KindSnapshotSink, ns, "git")); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("a sink without certificate verification carries TLSInsecure", func(t *testing.T) {
		ns := namespace(t)
		s := &v1alpha1.KollectEventSink{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kafka"},
			Spec: v1alpha1.KollectEventSinkSpec{Type: "kafka", Kafka: &v1alpha1.KafkaSink{Brokers: []string{"kafka.example.com:9093"}, Topic: "inv"}}}
		s.Spec.TLS = &v1alpha1.TLSConfig{InsecureSkipVerify: true}
		create(t, s)
		eventually(t, "TLSInsecure", func() error {
			return hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
				v1alpha1.ConditionTLSInsecure, metav1.ConditionTrue, v1alpha1.ReasonInsecureSkipVerify)
		})
		var cfg busv1.SinkConfig
		if err := configEntry(t, ref(busv1.KindEventSink, ns, "kafka"), &cfg); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(fmt.Sprint(cfg), "password") {
			t.Fatal("entry mentions a password")
		}
	})
}
