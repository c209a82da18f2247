package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// The status accessors every kind has, so control's reconcilers (and
// anything else that reads health) treat all kinds alike: the conditions,
// and the generation status was last written for.

// GetConditions returns the status conditions.
func (in *KollectProfile) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectProfile) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectProfile) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectProfile) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectTarget) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectTarget) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectTarget) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectTarget) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectClusterTarget) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectClusterTarget) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectClusterTarget) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectClusterTarget) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectInventory) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectInventory) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectInventory) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectInventory) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectClusterInventory) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectClusterInventory) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectClusterInventory) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectClusterInventory) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectSnapshotSink) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectSnapshotSink) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectSnapshotSink) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectSnapshotSink) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectDatabaseSink) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectDatabaseSink) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectDatabaseSink) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectDatabaseSink) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectEventSink) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectEventSink) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectEventSink) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectEventSink) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectScope) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectScope) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectScope) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectScope) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectClusterScope) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectClusterScope) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectClusterScope) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectClusterScope) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectConnectionTest) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectConnectionTest) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectConnectionTest) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectConnectionTest) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// GetConditions returns the status conditions.
func (in *KollectReplay) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *KollectReplay) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetObservedGeneration returns status.observedGeneration.
func (in *KollectReplay) GetObservedGeneration() int64 { return in.Status.ObservedGeneration }

// SetObservedGeneration sets status.observedGeneration.
func (in *KollectReplay) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }
