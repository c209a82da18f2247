package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxHistoryRevisions is the most revisions spec.history.revisions (and a
// Scope's maxHistory.revisions) may ask for. The bus keeps this many
// snapshot events per inventory by default (--bus-snapshot-history), so
// every permitted retention fits in the stream.
const MaxHistoryRevisions = 1000

// History says how much of an inventory's snapshot history the bus keeps,
// for replays and backfills. Each limit is applied on its own: the oldest
// revisions go as soon as any one is exceeded, the newest revision always
// stays. An unset field keeps the operator's default (the aggregator's
// --history-revisions, --history-max-age and --history-max-bytes: 16
// revisions for 7 days, bytes up to the cap). Every field, asked or
// default, is capped by the operator (control's --history-max-revisions,
// --history-max-age and --history-max-bytes: 100 revisions, 720h and 256Mi
// by default; admission refuses more) and by a Scope's maxHistory.
type History struct {
	// revisions is how many snapshot revisions to keep, 1 to 1000.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Revisions *int32 `json:"revisions,omitempty"`

	// maxAge is how long a revision is kept after it was published, between
	// 1m and 2160h (90 days). The bus stream's own age limit
	// (--bus-snapshot-max-age) still applies on top.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1m') && duration(self) <= duration('2160h')",message="maxAge must be between 1m and 2160h"
	MaxAge *metav1.Duration `json:"maxAge,omitempty"`

	// maxBytes bounds the bytes the kept revisions reference (envelopes,
	// deltas, manifests and chunks; a chunk shared by several revisions
	// counts once), at least 1Mi.
	// +optional
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).compareTo(quantity('1Mi')) >= 0",message="maxBytes must be at least 1Mi"
	MaxBytes *resource.Quantity `json:"maxBytes,omitempty"`
}
