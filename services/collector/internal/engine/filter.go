package engine

import "kollect.dev/kollect/pkg/selection"

// serverFilter finds the selectors every Target of a GVK shares.
type serverFilter struct {
	label, field  string
	seen, differs bool
	shared        bool // seen and not differs
}

func (f *serverFilter) add(s *selection.Selector) {
	label, field, ok := s.ServerFilter()
	f.differs = f.differs || !ok || (f.seen && (label != f.label || field != f.field))
	f.label, f.field, f.seen = label, field, true
	f.shared = !f.differs
}
