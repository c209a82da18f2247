package bus

import "strings"

// Content-addressed object names in ObjectStoreEnvelopes. A name is derived
// from the sha256 hex of the object's bytes, so an object is written once,
// never overwritten with other content, and verified on read.
const (
	chunkPrefix    = "chunk."
	manifestPrefix = "manifest."
	pagePrefix     = "page."
	deltaPrefix    = "delta."
	envelopePrefix = "envelope."
)

// ChunkObjectName returns chunk.<digest>, the object holding one snapshot
// chunk (busv1.Chunk).
func ChunkObjectName(digest string) string { return chunkPrefix + digest }

// ManifestObjectName returns manifest.<digest>, the object holding one
// busv1.Manifest as JSON.
func ManifestObjectName(digest string) string { return manifestPrefix + digest }

// PageObjectName returns page.<digest>, the object holding one
// busv1.ManifestPage (a run of chunks of a paged manifest) as JSON.
func PageObjectName(digest string) string { return pagePrefix + digest }

// DeltaObjectName returns delta.<digest>, the object holding one busv1.Delta
// too large for its event.
func DeltaObjectName(digest string) string { return deltaPrefix + digest }

// EnvelopeBlobObjectName returns envelope.<digest>, the object holding one
// whole envelope as JSON: the body of the periodic re-exports of a revision
// whose change event carried it inline, stored once instead of repeated by
// every periodic event.
func EnvelopeBlobObjectName(digest string) string { return envelopePrefix + digest }

// ObjectKind classifies an object name of ObjectStoreEnvelopes: "chunk",
// "manifest", "page", "delta", or "envelope" for whole envelopes
// (EnvelopeBlobObjectName, and the per-revision envelope objects of earlier
// releases, EnvelopeObjectName).
func ObjectKind(name string) string {
	for _, p := range []string{chunkPrefix, manifestPrefix, pagePrefix, deltaPrefix, envelopePrefix} {
		if strings.HasPrefix(name, p) {
			return strings.TrimSuffix(p, ".")
		}
	}
	return "envelope"
}
