package nats

import (
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/eventexporter/internal/parts"
)

// The message headers, mirroring the Kafka sink's record headers.
const (
	HeaderSchema    = "Kollect-Schema"
	HeaderChecksum  = "Kollect-Checksum"
	HeaderRevision  = "Kollect-Revision"
	HeaderCluster   = "Kollect-Cluster"
	HeaderInventory = "Kollect-Inventory" // "<namespace>/<name>"
	// HeaderPart is "i/n" on the messages of a split snapshot.
	HeaderPart = "Kollect-Part"
)

// header returns the headers of part p.
func header(p parts.Part) nats.Header {
	env := p.Envelope
	h := nats.Header{}
	h.Set(HeaderSchema, env.SchemaVersion)
	h.Set(HeaderChecksum, env.Checksum)
	h.Set(HeaderRevision, strconv.FormatUint(env.Revision, 10))
	h.Set(HeaderCluster, env.Cluster)
	h.Set(HeaderInventory, env.Inventory.Namespace+"/"+env.Inventory.Name)
	if l := p.Label(); l != "" {
		h.Set(HeaderPart, l)
	}
	return h
}

// MsgID is the Nats-Msg-Id of part p (see the package documentation).
func MsgID(env busv1.Envelope, replay bool) string {
	id := env.Cluster + "/" + env.Inventory.Namespace + "/" + env.Inventory.Name + "/" + env.Checksum + "/" +
		strconv.FormatUint(env.Revision, 10)
	if env.PartTotal > 0 {
		id += "/" + strconv.Itoa(env.PartIndex) + "/" + strconv.Itoa(env.PartTotal)
	}
	if replay {
		id += "/replay/" + env.ExportedAt.UTC().Format(time.RFC3339Nano)
	}
	return id
}

func msgID(p parts.Part, replay bool) string { return MsgID(p.Envelope, replay) }

// headerAllowance bounds the bytes the headers of any part of env take in
// a message, so that headers and envelope fit max_payload.
func headerAllowance(env busv1.Envelope) int64 {
	wide := env
	most := max(len(env.Items), env.ItemCount) + 1 // a streamed snapshot's Items are nil
	wide.PartIndex, wide.PartTotal = most, most
	h := header(parts.Part{Envelope: wide})
	h.Set(nats.MsgIdHdr, MsgID(wide, true))
	h.Set(jetstreamExpectedStream, "x")
	size := len("NATS/1.0\r\n\r\n")
	for k, vs := range h {
		for _, v := range vs {
			size += len(k) + len(": \r\n") + len(v)
		}
	}
	return int64(size) + 255 + 64 // the stream name (up to 255) and slack
}

const jetstreamExpectedStream = "Nats-Expected-Stream"
