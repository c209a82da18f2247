package v1alpha1

// SecretNamespace is a Secret reference of a sink spec that names a
// namespace: the field path, as written, and the namespace.
// +kubebuilder:object:generate=false
type SecretNamespace struct {
	// Field is the path of the reference's namespace, for messages
	// ("spec.secretRef.namespace").
	Field string
	// Namespace is the namespace the reference names.
	Namespace string
}

// SecretNamespaces lists the namespaces the common Secret reference
// names; a reference without a namespace (the sink's) is left out.
func (c *SinkCommon) SecretNamespaces() []SecretNamespace {
	if c == nil || c.SecretRef == nil || c.SecretRef.Namespace == "" {
		return nil
	}
	return []SecretNamespace{{Field: "spec.secretRef.namespace", Namespace: c.SecretRef.Namespace}}
}

// SecretNamespaces lists the namespaces the spec's Secret references name
// (secretRef, bigquery.secretRef, postgres and mongodb databaseRef), by the
// field they are written in; references without a namespace are left out.
func (s *KollectDatabaseSinkSpec) SecretNamespaces() []SecretNamespace {
	out := s.SinkCommon.SecretNamespaces()
	add := func(field, ns string) {
		if ns != "" {
			out = append(out, SecretNamespace{Field: field, Namespace: ns})
		}
	}
	if s.Postgres != nil && s.Postgres.DatabaseRef != nil {
		add("spec.postgres.databaseRef.namespace", s.Postgres.DatabaseRef.Namespace)
	}
	if s.MongoDB != nil && s.MongoDB.DatabaseRef != nil {
		add("spec.mongodb.databaseRef.namespace", s.MongoDB.DatabaseRef.Namespace)
	}
	if s.BigQuery != nil && s.BigQuery.SecretRef != nil {
		add("spec.bigquery.secretRef.namespace", s.BigQuery.SecretRef.Namespace)
	}
	return out
}

// Normalize gives databaseRef its default key and moves bigquery.secretRef
// to spec.secretRef.
func (s *KollectDatabaseSinkSpec) Normalize() {
	for _, ref := range []*DatabaseSecretReference{s.postgresRef(), s.mongoRef()} {
		if ref != nil && ref.Key == "" {
			ref.Key = DefaultDatabaseRefKey
		}
	}
	if s.BigQuery != nil && s.BigQuery.SecretRef != nil {
		if s.SecretRef == nil {
			s.SecretRef = s.BigQuery.SecretRef
		}
		s.BigQuery.SecretRef = nil
	}
}

func (s *KollectDatabaseSinkSpec) postgresRef() *DatabaseSecretReference {
	if s.Postgres == nil {
		return nil
	}
	return s.Postgres.DatabaseRef
}

func (s *KollectDatabaseSinkSpec) mongoRef() *DatabaseSecretReference {
	if s.MongoDB == nil {
		return nil
	}
	return s.MongoDB.DatabaseRef
}

// Normalize rewrites the sink's established spellings; see
// KollectDatabaseSinkSpec.Normalize.
func (s *KollectDatabaseSink) Normalize() { s.Spec.Normalize() }

// SecretNamespaces lists the namespace secretRef names, if any.
func (s *KollectSnapshotSinkSpec) SecretNamespaces() []SecretNamespace {
	return s.SinkCommon.SecretNamespaces()
}

// SecretNamespaces lists the namespace secretRef names, if any.
func (s *KollectEventSinkSpec) SecretNamespaces() []SecretNamespace {
	return s.SinkCommon.SecretNamespaces()
}
