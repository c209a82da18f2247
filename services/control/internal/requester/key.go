package requester

import (
	"context"
	"crypto/rand"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// keyField is the data key of the key Secret.
const keyField = "key"

// EnsureKey returns control's sealing key from the Secret ns/name, creating
// it with 32 random bytes when it does not exist. Replicas racing to create
// it agree on one: the loser reads the winner's. Every control replica,
// webhook and reconciler, uses the same key.
func EnsureKey(ctx context.Context, c client.Client, ns, name string) ([]byte, error) {
	key := client.ObjectKey{Namespace: ns, Name: name}
	var s corev1.Secret
	err := c.Get(ctx, key, &s)
	if apierrors.IsNotFound(err) {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("generate requester key: %w", err)
		}
		s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{keyField: b}}
		if err = c.Create(ctx, &s); apierrors.IsAlreadyExists(err) {
			err = c.Get(ctx, key, &s)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("ensure requester key secret %s/%s: %w", ns, name, err)
	}
	return s.Data[keyField], nil
}
