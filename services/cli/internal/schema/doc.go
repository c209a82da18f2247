// Package schema validates kollect.dev objects offline against the embedded
// CRDs with the API server's own code: structural defaulting, pruning of
// unknown fields, OpenAPI validation and the CEL x-kubernetes-validations
// rules. A folder that passes here is admitted by the API server's schema;
// rules needing other objects (Scopes, RBAC) are control's.
package schema
