package v1alpha1

import "strings"

// Normalize rewrites the established spellings of a snapshot sink: the
// endpoint and pathTemplate of a git or gitlab block move to the top-level
// fields, and a missing type is inferred from the block (InferredType). A
// top-level value that differs from the block's is kept, and the block's
// too, for admission to refuse.
func (s *KollectSnapshotSinkSpec) Normalize() {
	for _, b := range []*BlockLocation{s.gitLocation(), s.gitlabLocation()} {
		if b == nil {
			continue
		}
		lift(&s.Endpoint, &b.Endpoint)
		lift(&s.PathTemplate, &b.PathTemplate)
	}
	if s.Type == "" {
		s.Type = s.InferredType()
	}
}

// InferredType is the type a sink without spec.type has: git or gitlab by
// its block, s3 or gcs for an objectStore block by the endpoint's scheme
// (s3://, gs://); "" when nothing implies one.
func (s *KollectSnapshotSinkSpec) InferredType() SnapshotSinkType {
	endpoint := s.Endpoint
	for _, b := range []*BlockLocation{s.gitLocation(), s.gitlabLocation()} {
		if endpoint == "" && b != nil {
			endpoint = b.Endpoint
		}
	}
	switch {
	case s.Git != nil:
		return SnapshotGit
	case s.GitLab != nil:
		return SnapshotGitLab
	case s.ObjectStore != nil && strings.HasPrefix(endpoint, "s3://"):
		return SnapshotS3
	case s.ObjectStore != nil && strings.HasPrefix(endpoint, "gs://"):
		return SnapshotGCS
	}
	return ""
}

func (s *KollectSnapshotSinkSpec) gitLocation() *BlockLocation {
	if s.Git == nil {
		return nil
	}
	return &s.Git.BlockLocation
}

func (s *KollectSnapshotSinkSpec) gitlabLocation() *BlockLocation {
	if s.GitLab == nil {
		return nil
	}
	return &s.GitLab.BlockLocation
}

// lift moves an in-block value to its top-level field when that is empty
// or equal; a conflicting pair stays for admission to report.
func lift(top, block *string) {
	if *block == "" || (*top != "" && *top != *block) {
		return
	}
	*top, *block = *block, ""
}

// Normalize rewrites the sink's established spellings; see
// KollectSnapshotSinkSpec.Normalize.
func (s *KollectSnapshotSink) Normalize() { s.Spec.Normalize() }
