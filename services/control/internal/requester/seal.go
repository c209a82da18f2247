package requester

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"kollect.dev/kollect/api/v1alpha1"
)

// Record is the requester of an object's current spec.
type Record struct {
	// User is the user name the API server authenticated.
	User string `json:"user"`
	// Groups are the user's groups.
	Groups []string `json:"groups,omitempty"`
}

// Sealer seals and verifies records with control's key.
type Sealer struct {
	key []byte
}

// NewSealer returns a Sealer with key (at least 32 bytes).
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) < 32 {
		return nil, fmt.Errorf("requester key: %d bytes, want at least 32", len(key))
	}
	return &Sealer{key: key}, nil
}

// Object names what a seal is bound to: the kind, namespace, name and the
// whole typed spec, so that a spec changed by anyone but the recorded
// requester no longer verifies.
type Object struct {
	Kind, Namespace, Name string
	// Spec is the object's typed spec, as read (before normalisation).
	Spec any
}

// Seal returns the annotations recording r as the requester of o.
func (s *Sealer) Seal(o Object, r Record) (map[string]string, error) {
	rec, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode requester: %w", err)
	}
	mac, err := s.mac(o, rec)
	if err != nil {
		return nil, err
	}
	return map[string]string{v1alpha1.AnnotationRequester: string(rec), v1alpha1.AnnotationRequesterSeal: mac}, nil
}

// Verify returns the requester recorded in annotations when its seal
// matches o; false when there is none, or it was written by anyone but
// control, or the spec changed since.
func (s *Sealer) Verify(o Object, annotations map[string]string) (Record, bool) {
	rec, seal := annotations[v1alpha1.AnnotationRequester], annotations[v1alpha1.AnnotationRequesterSeal]
	if rec == "" || seal == "" {
		return Record{}, false
	}
	want, err := s.mac(o, []byte(rec))
	if err != nil || !hmac.Equal([]byte(want), []byte(seal)) {
		return Record{}, false
	}
	var r Record
	if json.Unmarshal([]byte(rec), &r) != nil || r.User == "" {
		return Record{}, false
	}
	return r, true
}

func (s *Sealer) mac(o Object, rec []byte) (string, error) {
	spec, err := json.Marshal(o.Spec)
	if err != nil {
		return "", fmt.Errorf("encode spec of %s %s/%s: %w", o.Kind, o.Namespace, o.Name, err)
	}
	sum := sha256.Sum256(spec)
	h := hmac.New(sha256.New, s.key)
	for _, part := range [][]byte{[]byte("kollect-requester-v1"), []byte(o.Kind), []byte(o.Namespace), []byte(o.Name), sum[:], rec} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return base64.RawStdEncoding.EncodeToString(h.Sum(nil)), nil
}
