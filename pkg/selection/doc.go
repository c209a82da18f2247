// Package selection decides which objects a KollectTarget or
// KollectClusterTarget collects: its namespace selection (namespaceSelector,
// includedNamespaces, excludedNamespaces, namespaceExcludeSelector), its
// object selection (labelSelector, names, resourceRules with a CEL
// matchPolicy, OR-combined) and the kollect.dev/watch opt-in and opt-out
// labels.
//
// A selection is compiled once per spec change into a Selector; matching does
// no parsing. The collector and `kollect collect` share it, so the same CR
// means the same thing to both. selection knows nothing of informers, the bus
// or authorisation: whether a tenant may reach a namespace is control's
// admission job, and Scope ceilings are applied by the caller.
package selection
