package exporter

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"kollect.dev/kollect/pkg/exporter/backend"
)

// KubeCredentials reads Secrets from the Kubernetes API. Each read is a GET,
// so a rotated Secret is seen by the next read; sinks are built rarely and
// the runtime re-reads only the Secrets of built sinks, so no cache is kept
// (a cluster-wide Secret informer would hold every Secret in memory).
type KubeCredentials struct {
	// Client reads Secrets; the exporter's service account needs get on
	// secrets in the sinks' namespaces and nothing else.
	Client kubernetes.Interface
}

// Secret returns the data of Secret namespace/name. A missing or forbidden
// Secret is a permanent SecretResolveFailed error (Unresolved); other API
// errors are transient.
func (k KubeCredentials) Secret(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	s, err := k.Client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, backend.Unresolved(fmt.Errorf("read Secret %s/%s: not found", namespace, name))
	case apierrors.IsForbidden(err):
		return nil, backend.Unresolved(fmt.Errorf("read Secret %s/%s: the exporter may not read it", namespace, name))
	case err != nil:
		return nil, fmt.Errorf("read Secret %s/%s: %w", namespace, name, err)
	}
	return s.Data, nil
}
