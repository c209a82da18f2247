// Package answer answers the history API's questions from the bus: an
// inventory's revisions with what each changed, a page of one revision's
// rows, a page of the row-level difference between two revisions and one
// object's timeline. It answers from each inventory's index (the heads of
// its events) and reads rows only for the revisions an answer shows, one
// chunk at a time, so its memory does not grow with the history or the
// inventory. It reads the snapshot stream and the envelope object store
// through pkg/history and never writes; authorization, limits and paging
// belong to the caller (services/query/internal/server).
package answer
