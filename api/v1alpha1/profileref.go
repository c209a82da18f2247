package v1alpha1

// ProfileReference names the KollectProfile of a KollectTarget, in the
// target's namespace. It is written either as the profile's name or as an
// object with the name; both mean the same:
//
//	profileRef: deployment-images          # the established spelling
//	profileRef: {name: deployment-images}  # the canonical one
//
// As with SinkBinding, the schema cannot type a string-or-object value: an
// entry of another shape is refused by the validating webhook and reported
// as InvalidSpec at reconcile (see DecodeError).
//
// +kubebuilder:validation:Type=""
// +kubebuilder:pruning:PreserveUnknownFields
type ProfileReference struct {
	// name of the KollectProfile, in the target's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// enc remembers how the reference was written so that it re-encodes to
	// the same JSON (no spurious spec change on an update).
	enc bindingEncoding `json:"-"`
}

// DecodeError says why the reference, as stored, is neither a profile name
// nor an object with a name. Nil for a valid reference.
func (r ProfileReference) DecodeError() error { return r.enc.error() }

// Canonical returns the reference in the canonical object form: it encodes
// as {name: ...} whatever spelling it was decoded from.
func (r ProfileReference) Canonical() ProfileReference {
	return ProfileReference{Name: r.Name}
}

// MarshalJSON encodes the reference as it was written: a plain name when it
// was decoded from one, an object otherwise (and when built in Go).
func (r ProfileReference) MarshalJSON() ([]byte, error) {
	type plain ProfileReference
	return r.enc.encode(r.enc.name, r.Name, plain(r))
}

// UnmarshalJSON accepts a name or an object. It never fails; see
// SinkBinding.UnmarshalJSON.
func (r *ProfileReference) UnmarshalJSON(data []byte) error {
	type plain ProfileReference
	var v plain
	enc := decodeBinding(data, &v.Name, &v, "profile")
	*r = ProfileReference(v)
	r.enc = enc
	return nil
}
