package v1alpha1

// ExportMode chooses whether rows carry only attributes or the object too.
// +kubebuilder:validation:Enum=Attributes;Resource
type ExportMode string

// Export modes.
const (
	// ExportAttributes: rows carry the attributes only.
	ExportAttributes ExportMode = "Attributes"
	// ExportResource: rows also carry the object, under attributes[as].
	ExportResource ExportMode = "Resource"
)

// ExportInclude chooses the parts of the object embedded in a row.
// +kubebuilder:validation:Enum=MetadataOnly;SpecOnly;StatusOnly;SpecAndStatus;All
type ExportInclude string

// Parts of the object to embed.
const (
	IncludeMetadataOnly  ExportInclude = "MetadataOnly"
	IncludeSpecOnly      ExportInclude = "SpecOnly"
	IncludeStatusOnly    ExportInclude = "StatusOnly"
	IncludeSpecAndStatus ExportInclude = "SpecAndStatus"
	IncludeAll           ExportInclude = "All"
)

// ProfileExport embeds the object itself in each row.
type ProfileExport struct {
	// mode is Attributes (the default: rows carry only the attributes) or
	// Resource (rows also carry the object under attributes[as]). The other
	// fields apply in Resource mode.
	// +optional
	// +kubebuilder:default=Attributes
	Mode ExportMode `json:"mode,omitempty"`

	// as is the attribute key the object is embedded under (default
	// "resource"). It must not equal the name of an attribute.
	// +optional
	// +kubebuilder:default=resource
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	As string `json:"as,omitempty"`

	// include chooses the top-level fields embedded; every mode keeps
	// apiVersion and kind, and the identity (metadata name, namespace, uid)
	// unless dedupeIdentity drops it. MetadataOnly: the whole metadata.
	// SpecOnly: every top-level field but metadata and status (spec, or
	// data, type, rules... for kinds without a spec). StatusOnly: status.
	// SpecAndStatus (the default): SpecOnly's fields and status. All: every
	// top-level field, metadata included, and the only setting under which
	// an opted-in Secret's data is exported unredacted. Only MetadataOnly
	// and All carry labels, annotations and creationTimestamp.
	// +optional
	// +kubebuilder:default=SpecAndStatus
	Include ExportInclude `json:"include,omitempty"`

	// dedupeIdentity (default true) drops metadata.name, metadata.namespace
	// and metadata.uid from the embedded copy, since the row carries them.
	// +optional
	// +kubebuilder:default=true
	DedupeIdentity *bool `json:"dedupeIdentity,omitempty"`

	// prune removes fields from the embedded copy before it leaves the
	// collector.
	// +optional
	Prune *ExportPrune `json:"prune,omitempty"`
}

// ExportPrune removes fields from embedded objects.
type ExportPrune struct {
	// defaults (default true) removes the usual noise: metadata.managedFields,
	// resourceVersion, generation, the kubectl last-applied-configuration
	// annotation and similar bookkeeping annotations.
	// +optional
	// +kubebuilder:default=true
	Defaults *bool `json:"defaults,omitempty"`

	// jsonPointers are RFC 6901 pointers to fields to remove, for example
	// `/status/conditions` or `/metadata/annotations/example.com~1note`
	// (`~1` stands for `/`, `~0` for `~`).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	// +kubebuilder:validation:items:Pattern=`^(/([^~/]|~[01])*)+$`
	JSONPointers []string `json:"jsonPointers,omitempty"`

	// jsonPaths are JSONPath expressions (`$.a.b` or `{.a.b}`) whose matches
	// are removed; wildcards are allowed.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	// +kubebuilder:validation:items:Pattern=`^(\$|\{.*\}$)`
	JSONPaths []string `json:"jsonPaths,omitempty"`

	// scrubKeys are extra map keys to redact at any depth, matched like the
	// built-in denylist (case-insensitive, exact or suffix).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=128
	ScrubKeys []string `json:"scrubKeys,omitempty"`
}
