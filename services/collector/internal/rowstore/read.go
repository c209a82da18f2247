package rowstore

import busv1 "kollect.dev/kollect/api/bus/v1"

// Keys returns the keys of every row of one Target (targetNamespace empty for
// a ClusterTarget), pending writes included.
func (s *Store) Keys(targetNamespace, targetName string) []busv1.RowKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	of := func(k busv1.RowKey) bool { return k.TargetNamespace == targetNamespace && k.TargetName == targetName }
	var out []busv1.RowKey
	for k := range s.known {
		if w, ok := s.pending[k]; of(k) && (!ok || !w.del) {
			out = append(out, k)
		}
	}
	for k, w := range s.pending {
		if _, ok := s.known[k]; of(k) && !ok && !w.del {
			out = append(out, k)
		}
	}
	return out
}

// Count returns the number of rows of one Target (targetNamespace empty for a
// ClusterTarget) once the pending writes land.
func (s *Store) Count(targetNamespace, targetName string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[busv1.NamespacedName{Namespace: targetNamespace, Name: targetName}]
}

// Targets returns every Target that has at least one row, in no particular
// order; Namespace is empty for ClusterTargets.
func (s *Store) Targets() []busv1.NamespacedName {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]busv1.NamespacedName, 0, len(s.counts))
	for t := range s.counts {
		out = append(out, t)
	}
	return out
}

// Len returns the number of rows on the bus once the pending writes land.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}
