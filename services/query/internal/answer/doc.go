// Package history answers the history API's questions from the bus: an
// inventory's revisions with what each changed, one revision's rows, the
// row-level difference between two revisions and one object's timeline.
// It reads the snapshot stream and the envelope object store through
// pkg/history and never writes; authorization and paging belong to the
// caller (services/query/internal/server).
package answer
