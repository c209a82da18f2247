package kafka

// SetRecallLimit sets the largest topic whose perRow rows s reads back.
func SetRecallLimit(s *Sink, records int64) { s.recallLimit = records }
