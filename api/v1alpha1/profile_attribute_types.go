package v1alpha1

// AttributeType is the type an attribute's value must have.
// +kubebuilder:validation:Enum=string;int;float;bool;list;map;any
type AttributeType string

// Attribute types.
const (
	AttributeString AttributeType = "string"
	AttributeInt    AttributeType = "int"
	AttributeFloat  AttributeType = "float"
	AttributeBool   AttributeType = "bool"
	AttributeList   AttributeType = "list"
	AttributeMap    AttributeType = "map"
	AttributeAny    AttributeType = "any"
)

// Attribute is one value extracted from each object.
type Attribute struct {
	// name is the key of the value in the row's attributes, unique within
	// the profile. It is also the column suffix of Parquet hot attributes
	// and the name metrics refer to, so it is an identifier: a letter or
	// underscore, then letters, digits and underscores.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	Name string `json:"name"`

	// path says where the value comes from; its prefix chooses the language:
	//
	//   - JSONPath, `$.spec.replicas` or kubectl style `{.spec.replicas}`.
	//     A wildcard (`$.spec.containers[*].image`) always yields a list.
	//   - CEL, `cel:<expression>`, with the variable `object` holding the
	//     whole object, e.g. `cel:object.spec.template.spec.containers.map(c, c.image)`.
	//     Expressions compile once per spec change, with a cost limit.
	//   - Helm release decoding, `helm:release.<field>`, on core v1 Secrets
	//     of type helm.sh/release.v1; field is one of releaseName,
	//     chartName, chartVersion, appVersion, revision, status,
	//     lastDeployed, namespace, config.
	//
	// Paths that touch Secret data need the profile annotation
	// kollect.dev/allow-secret-extraction: "true".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="self.startsWith('$') || (self.startsWith('{') && self.endsWith('}')) || (self.startsWith('cel:') && size(self) > 4) || self.startsWith('helm:release.')",message="path must be a JSONPath ($.a.b or {.a.b}), a CEL expression (cel:<expr>) or a Helm release field (helm:release.<field>)"
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('helm:') || self.matches('^helm:release[.](releaseName|chartName|chartVersion|appVersion|revision|status|lastDeployed|namespace|config)$')",message="helm path field must be one of releaseName, chartName, chartVersion, appVersion, revision, status, lastDeployed, namespace, config"
	Path string `json:"path"`

	// type is enforced on the value: string, int, float, bool, list, map or
	// any (the default). With list, a single value becomes a one-element
	// list. A scalar of the wrong type is an extraction error, never a
	// silently different value.
	// +optional
	// +kubebuilder:default=any
	Type AttributeType `json:"type,omitempty"`

	// optional changes what a missing value or an evaluation error means.
	// Required attributes (the default) write null for a missing value, and
	// an evaluation error drops the object's row and counts an extraction
	// failure on the target. Optional attributes omit the key in both cases.
	// +optional
	Optional bool `json:"optional,omitempty"`
}

// ProfileMetric is a gauge the collector exposes, one series per object.
type ProfileMetric struct {
	// name of the metric, a Prometheus metric name, unique within the
	// profile.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[a-zA-Z_:][a-zA-Z0-9_:]*$`
	Name string `json:"name"`

	// path is the name of the attribute (of type int, float, bool or any
	// holding a number) that gives the gauge's value.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Path string `json:"path"`

	// labels are names of attributes whose values become metric labels, at
	// most 5.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=5
	// +kubebuilder:validation:items:MaxLength=63
	Labels []string `json:"labels,omitempty"`
}
