package admission

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/access"
)

// replay admits a KollectReplay only from a user who may get the inventory
// it replays (a replay re-sends that inventory's past data, which create
// on kollectreplays alone does not entitle anyone to read) and while its
// namespace has a slot of its quota of replays in flight. Control checks
// again that the sink is bound (and, for a cluster inventory, of the
// replay's namespace) where it compiles the request.
func (v *Validator) replay(ctx context.Context, req admission.Request, r *v1alpha1.KollectReplay) (string, error) {
	ref := r.Spec.InventoryRef
	kind, ns := ref.Kind, r.Namespace
	if kind == "" {
		kind = "KollectInventory"
	}
	if kind == "KollectClusterInventory" {
		ns = ""
	}
	rv := &access.Reviewer{Kube: v.Kube, Mapper: v.Mapper}
	res, _, err := rv.Mapping(v1alpha1.GroupVersion.WithKind(kind))
	if err != nil {
		return "", err
	}
	ok, err := rv.MayGet(ctx, identity(req), res, ns, ref.Name)
	if err != nil {
		return "", err
	}
	if ok {
		return v.replayQuota(ctx, r)
	}
	if ns == "" {
		return fmt.Sprintf("spec.inventoryRef: %s may not get %s %s, whose history the replay would deliver",
			req.UserInfo.Username, kind, ref.Name), nil
	}
	return fmt.Sprintf("spec.inventoryRef: %s may not get %s %s/%s, whose history the replay would deliver",
		req.UserInfo.Username, kind, ns, ref.Name), nil
}

// identity is the requesting user of req, for access reviews.
func identity(req admission.Request) access.Identity {
	extra := map[string]authorizationv1.ExtraValue{}
	for k, val := range req.UserInfo.Extra {
		extra[k] = authorizationv1.ExtraValue(val)
	}
	return access.Identity{User: req.UserInfo.Username, Groups: req.UserInfo.Groups, UID: req.UserInfo.UID, Extra: extra}
}
