package v1alpha1

// Endpoints lists every address the spec names, as written (spec.endpoint
// and the established git.endpoint and gitlab.endpoint), for the endpoint
// policy. Admission and reconcile check these and nothing else, so a new
// type's address field must be listed here.
func (s *KollectSnapshotSinkSpec) Endpoints() []string {
	out := nonEmpty(s.Endpoint)
	if s.Git != nil {
		out = append(out, nonEmpty(s.Git.Endpoint)...)
	}
	if s.GitLab != nil {
		out = append(out, nonEmpty(s.GitLab.Endpoint)...)
	}
	return out
}

// Endpoints lists every address the spec names (spec.endpoint), for the
// endpoint policy; connection strings held in Secrets are checked by the
// exporter when it dials.
func (s *KollectDatabaseSinkSpec) Endpoints() []string { return nonEmpty(s.Endpoint) }

// Endpoints lists every address the spec names (spec.endpoint,
// kafka.brokers, nats.url), for the endpoint policy.
func (s *KollectEventSinkSpec) Endpoints() []string {
	out := nonEmpty(s.Endpoint)
	if s.Kafka != nil {
		for _, b := range s.Kafka.Brokers {
			out = append(out, nonEmpty(b)...)
		}
	}
	if s.NATS != nil {
		out = append(out, nonEmpty(s.NATS.URL)...)
	}
	return out
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// SinkType returns spec.type.
func (s *KollectSnapshotSinkSpec) SinkType() string { return string(s.Type) }

// SinkType returns spec.type.
func (s *KollectDatabaseSinkSpec) SinkType() string { return string(s.Type) }

// SinkType returns spec.type.
func (s *KollectEventSinkSpec) SinkType() string { return string(s.Type) }
