package extract

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The opt-in annotations (their names are also api/v1alpha1 constants; a test keeps them
// equal). The engine only quotes them in error messages; Spec carries their values.
const (
	annotationAllowSecretExtraction   = "kollect.dev/allow-secret-extraction" //nolint:gosec // G101: an annotation name, not a credential
	annotationAllowFullResourceExport = "kollect.dev/allow-full-resource-export"
)

// Spec is what Compile needs to build an Extractor: the Profile's GVK, attributes and export
// block, plus the two opt-in annotations. It mirrors KollectProfileSpec without depending on
// the API package, so the engine can be used and tested on its own.
type Spec struct {
	// GVK is the Profile's targetGVK. Secret rules apply when it is core v1 Secret.
	GVK schema.GroupVersionKind
	// Attributes are compiled in order; errors name spec.attributes[i].
	Attributes []Attribute
	// Export is the optional full-resource export block (spec.export).
	Export *Export
	// AllowSecretExtraction is the annotation kollect.dev/allow-secret-extraction: "true":
	// attribute paths may read Secret data.
	AllowSecretExtraction bool
	// AllowFullResourceExport is the annotation kollect.dev/allow-full-resource-export:
	// "true": Secrets may be exported whole. With include All as well, data and stringData are
	// exported instead of the secret-data marker; keys inside them that match the denylist
	// (a data key "password", say) are still redacted, as everywhere else.
	AllowFullResourceExport bool
}

// Attribute is one entry of spec.attributes.
type Attribute struct {
	// Name is the key of the value in the extracted attributes.
	Name string
	// Path selects the value; its language is chosen by prefix: "$" or "{" JSONPath,
	// "cel:" CEL, "helm:release." Helm release decoding.
	Path string
	// Type is enforced on the value; empty means TypeAny.
	Type Type
	// Optional omits the key when the value is missing or cannot be evaluated.
	Optional bool
}

// ExportMode is spec.export.mode.
type ExportMode string

// Export modes.
const (
	// ExportAttributes exports only the attributes (the default).
	ExportAttributes ExportMode = "Attributes"
	// ExportResource adds an embedded, pruned and redacted copy of the object under As.
	ExportResource ExportMode = "Resource"
)

// Include is spec.export.include: which parts of the object the embedded copy keeps.
type Include string

// Include modes. Every mode keeps apiVersion, kind and the pruned metadata; "spec" means every
// top-level field other than apiVersion, kind, metadata and status (so ConfigMap data, Role
// rules and Secret type/data count as spec).
const (
	// IncludeMetadataOnly keeps apiVersion, kind and metadata.
	IncludeMetadataOnly Include = "MetadataOnly"
	// IncludeSpecOnly adds the spec fields.
	IncludeSpecOnly Include = "SpecOnly"
	// IncludeStatusOnly adds status.
	IncludeStatusOnly Include = "StatusOnly"
	// IncludeSpecAndStatus adds the spec fields and status (the default).
	IncludeSpecAndStatus Include = "SpecAndStatus"
	// IncludeAll keeps every top-level field; it is also the second opt-in that lets Secret
	// data through unredacted.
	IncludeAll Include = "All"
)

// DefaultExportAs is the attribute key of the embedded resource when export.as is empty.
const DefaultExportAs = "resource"

// Export is spec.export.
type Export struct {
	// Mode is Attributes (default) or Resource.
	Mode ExportMode
	// As is the attribute key of the embedded copy; empty means DefaultExportAs.
	As string
	// Include selects the parts kept; empty means IncludeSpecAndStatus.
	Include Include
	// DedupeIdentity drops metadata name, namespace and uid (already in the row); nil means true.
	DedupeIdentity *bool
	// Prune removes noise and extra paths from the embedded copy.
	Prune *ExportPrune
}

// ExportPrune is spec.export.prune.
type ExportPrune struct {
	// Defaults removes managedFields, resourceVersion, generation, selfLink and churning
	// annotations (see DefaultPrunedAnnotations); nil means true.
	Defaults *bool
	// JSONPointers are RFC 6901 pointers removed from the embedded copy.
	JSONPointers []string
	// JSONPaths are JSONPath expressions whose matches are removed from the embedded copy.
	JSONPaths []string
	// ScrubKeys extend the redaction denylist for this Profile (attributes included).
	ScrubKeys []string
}

// Options are operator-level settings shared by every Profile. The collector, control
// (admission and reconcile) and the CLI must use the same Options, so that a Profile compiles,
// and is redacted, the same way everywhere; BindFlags registers them.
type Options struct {
	// ScrubKeys extend the redaction name rule for every Profile (see DefaultScrubKeys).
	ScrubKeys []string
	// NoDefaultScrubKeys drops DefaultScrubKeys and DefaultWordScrubKeys, so ScrubKeys are
	// the whole name rule. The fixed rules stay: reference blocks, the last-applied
	// annotation, value detectors and Secret data.
	NoDefaultScrubKeys bool
	// CELCostLimit bounds one CEL evaluation (runtime cost units) and the estimated
	// worst-case cost checked at compile time; 0 means DefaultCELCostLimit.
	CELCostLimit uint64
	// CELTimeout bounds the wall time of one evaluation of an expression whose cost depends
	// on the object's size; 0 means DefaultCELTimeout. cel-go's runtime cost tracking is
	// quadratic in the number of comprehension iterations, so the cost limit alone does not
	// bound time on very large lists.
	CELTimeout time.Duration
}

// DefaultCELCostLimit is the per-expression cost limit, the same as the Kubernetes API
// server's per-call limit for validation rules.
const DefaultCELCostLimit = 1_000_000

// DefaultCELTimeout is the default CELTimeout.
const DefaultCELTimeout = 100 * time.Millisecond

// Rules returns the redaction rules of o.
func (o Options) Rules() *Rules {
	return newRules(!o.NoDefaultScrubKeys, o.ScrubKeys)
}

func (o Options) celTimeout() time.Duration {
	if o.CELTimeout <= 0 {
		return DefaultCELTimeout
	}
	return o.CELTimeout
}

func (o Options) celCostLimit() uint64 {
	if o.CELCostLimit == 0 {
		return DefaultCELCostLimit
	}
	return o.CELCostLimit
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}
