// Package policy holds the pure rules control enforces both at admission and
// at reconcile: Scope ceilings (kinds, namespaces, sinks, interval floor) and
// the sink endpoint address policy. Sharing them keeps the webhook and the
// reconcilers from drifting apart.
//
// It reads no objects and makes no API calls; callers pass what they looked
// up.
package policy
