package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/requester"
)

// StampPath is where the mutating webhook that records requesters is
// served.
const StampPath = "/mutate-kollect-dev"

// Stamper records the requester of a Target's or sink's spec: on create,
// on every update that changes the spec and when the object carries
// AnnotationVerifyRequester (which it removes), it seals the requesting
// user into AnnotationRequester and AnnotationRequesterSeal, replacing
// whatever the request wrote there. Other updates (control's finalizers,
// labels) keep the record as it is, so control never becomes a requester.
type Stamper struct {
	// Sealer seals records with control's key.
	Sealer *requester.Sealer
	// DefaultServiceAccount is the operator's default ServiceAccount.
	DefaultServiceAccount string
}

// Handle stamps one create or update.
func (s *Stamper) Handle(_ context.Context, req admission.Request) admission.Response {
	obj := newStamped(req.Kind.Kind)
	if obj == nil || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return admission.Allowed("")
	}
	if err := json.Unmarshal(req.Object.Raw, obj); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decode %s %s: %w", req.Kind.Kind, req.Name, err))
	}
	_, verify := obj.GetAnnotations()[v1alpha1.AnnotationVerifyRequester]
	if req.Operation == admissionv1.Update && !verify && sameSpec(req.OldObject.Raw, req.Object.Raw) {
		return admission.Allowed("spec unchanged")
	}
	// On create the name may be generated after admission: seal the name
	// the object will have, which the request carries in req.Name.
	obj.SetNamespace(req.Namespace)
	obj.SetName(req.Name)
	_, o, _ := requester.Of(obj, s.DefaultServiceAccount)
	ann, err := s.Sealer.Seal(o, requester.Record{User: req.UserInfo.Username, Groups: req.UserInfo.Groups})
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	var raw map[string]any
	if err := json.Unmarshal(req.Object.Raw, &raw); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	meta, _ := raw["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		raw["metadata"] = meta
	}
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	delete(annotations, v1alpha1.AnnotationVerifyRequester)
	for k, v := range ann {
		annotations[k] = v
	}
	meta["annotations"] = annotations
	out, err := json.Marshal(raw)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, out)
}

// newStamped returns an empty object of a kind that chooses an identity.
func newStamped(kind string) client.Object {
	switch kind {
	case "KollectTarget":
		return &v1alpha1.KollectTarget{}
	case "KollectSnapshotSink":
		return &v1alpha1.KollectSnapshotSink{}
	case "KollectDatabaseSink":
		return &v1alpha1.KollectDatabaseSink{}
	case "KollectEventSink":
		return &v1alpha1.KollectEventSink{}
	}
	return nil
}
