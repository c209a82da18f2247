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
	var ann map[string]string
	if req.Operation == admissionv1.Update && !verify && sameSpec(req.OldObject.Raw, req.Object.Raw) {
		// The record stays as it was: a server-side apply that does not
		// name the annotations, or an edit of them, does not drop or change
		// it.
		var err error
		if ann, err = oldRecord(req.OldObject.Raw); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		cur := obj.GetAnnotations()
		if cur[v1alpha1.AnnotationRequester] == ann[v1alpha1.AnnotationRequester] &&
			cur[v1alpha1.AnnotationRequesterSeal] == ann[v1alpha1.AnnotationRequesterSeal] {
			return admission.Allowed("spec unchanged")
		}
	} else {
		// On create the name may be generated after admission: seal the
		// name the object will have, which the request carries in req.Name.
		obj.SetNamespace(req.Namespace)
		obj.SetName(req.Name)
		_, o, _ := requester.Of(obj, s.DefaultServiceAccount)
		var err error
		if ann, err = s.Sealer.Seal(o, requester.Record{User: req.UserInfo.Username, Groups: req.UserInfo.Groups}); err != nil {
			return admission.Errored(http.StatusInternalServerError, err)
		}
	}
	return setAnnotations(req.Object.Raw, ann)
}

// oldRecord returns the requester annotations of the stored object, empty
// values for those it lacks.
func oldRecord(raw []byte) (map[string]string, error) {
	var old struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &old); err != nil {
		return nil, fmt.Errorf("decode the stored object: %w", err)
	}
	a := old.Metadata.Annotations
	return map[string]string{v1alpha1.AnnotationRequester: a[v1alpha1.AnnotationRequester],
		v1alpha1.AnnotationRequesterSeal: a[v1alpha1.AnnotationRequesterSeal]}, nil
}

// setAnnotations patches raw: ann's annotations set (removed when empty)
// and AnnotationVerifyRequester removed.
func setAnnotations(orig []byte, ann map[string]string) admission.Response {
	var raw map[string]any
	if err := json.Unmarshal(orig, &raw); err != nil {
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
		if v == "" {
			delete(annotations, k)
		} else {
			annotations[k] = v
		}
	}
	meta["annotations"] = annotations
	out, err := json.Marshal(raw)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(orig, out)
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
