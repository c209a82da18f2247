package requester

import (
	"context"
	"fmt"

	"kollect.dev/kollect/services/control/internal/access"
)

// Reviewer answers whether an identity may act as a ServiceAccount or read
// a Secret; access.Reviewer implements it.
type Reviewer interface {
	MayImpersonateServiceAccount(ctx context.Context, id access.Identity, ns, name string) (bool, error)
	MayGetSecret(ctx context.Context, id access.Identity, ns, name string) (bool, error)
}

// Identity is the access-review identity of r.
func (r Record) Identity() access.Identity {
	return access.Identity{User: r.User, Groups: r.Groups}
}

// Denial returns "" when id may use everything c chooses, and otherwise a
// one-line message naming the first choice it may not use. ns is the
// object's namespace (the ServiceAccount's).
func Denial(ctx context.Context, rv Reviewer, id access.Identity, ns string, c Choice) (string, error) {
	if c.ServiceAccount != "" {
		ok, err := rv.MayImpersonateServiceAccount(ctx, id, ns, c.ServiceAccount)
		if err != nil {
			return "", err
		}
		if !ok {
			return fmt.Sprintf("spec.serviceAccountName: %s may not act as ServiceAccount %s/%s (impersonate serviceaccounts); "+
				"only a user who may use that identity can choose it", id.User, ns, c.ServiceAccount), nil
		}
	}
	for _, s := range c.Secrets {
		ok, err := rv.MayGetSecret(ctx, id, s.Namespace, s.Name)
		if err != nil {
			return "", err
		}
		if !ok {
			return fmt.Sprintf("spec: %s may not get Secret %s/%s; only a user who may read a Secret can have a sink use it",
				id.User, s.Namespace, s.Name), nil
		}
	}
	return "", nil
}
