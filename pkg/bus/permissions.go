package bus

import (
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// ServicePermissions are the NATS subjects one service must be allowed to
// publish to and subscribe to, for a NATS user or account of its own.
type ServicePermissions struct {
	// Service the permissions are for.
	Service busv1.Service
	// Publish lists the subjects the service publishes to, JetStream API
	// subjects included.
	Publish []string
	// Subscribe lists the subjects the service subscribes to.
	Subscribe []string
	// AllowResponses is true when the service answers requests (NATS
	// allow_responses), which lets it publish one reply per request.
	AllowResponses bool
}

// inbox is where JetStream replies, consumer deliveries and request replies
// arrive; every service subscribes to it.
const inbox = "_INBOX.>"

// streamRead is what getting, watching and consuming a stream needs: stream
// info, direct and stored message gets, creating and using consumers (KV
// watchers and object gets use ordered consumers), flow control and acks.
func streamRead(stream string) []string {
	api := "$JS.API."
	return []string{
		api + "STREAM.INFO." + stream,
		api + "STREAM.MSG.GET." + stream,
		api + "DIRECT.GET." + stream,
		api + "DIRECT.GET." + stream + ".>",
		api + "CONSUMER.CREATE." + stream,
		api + "CONSUMER.CREATE." + stream + ".>",
		api + "CONSUMER.INFO." + stream + ".*",
		api + "CONSUMER.DELETE." + stream + ".*",
		api + "CONSUMER.MSG.NEXT." + stream + ".*",
		"$JS.FC." + stream + ".>",
		"$JS.ACK." + stream + ".>",
	}
}

// durableRead is what using a provisioned durable consumer needs.
func durableRead(stream, durable string) []string {
	api := "$JS.API."
	return []string{
		api + "CONSUMER.INFO." + stream + "." + durable,
		api + "CONSUMER.MSG.NEXT." + stream + "." + durable,
		"$JS.FC." + stream + ".>",
		"$JS.ACK." + stream + "." + durable + ".>",
	}
}

func permissions(l Listing) []ServicePermissions {
	all := append(services(busv1.ServiceControl, busv1.ServiceCollector, busv1.ServiceAggregator), exporters...)
	all = append(all, busv1.ServiceQuery)
	out := make([]ServicePermissions, 0, len(all))
	for _, s := range all {
		p := ServicePermissions{Service: s, Publish: []string{"$JS.API.INFO"}, Subscribe: []string{inbox}}
		for _, b := range l.Buckets {
			if slices.Contains(b.Readers, s) || slices.Contains(b.Writers, s) {
				p.Publish = append(p.Publish, streamRead(KVStreamName(b.Config.Bucket))...)
			}
		}
		for _, o := range l.ObjectStores {
			if slices.Contains(o.Readers, s) || slices.Contains(o.Writers, s) {
				p.Publish = append(p.Publish, streamRead(ObjectStoreStreamName(o.Config.Bucket))...)
			}
			if slices.Contains(o.Writers, s) {
				p.Publish = append(p.Publish, "$O."+o.Config.Bucket+".>",
					"$JS.API.STREAM.PURGE."+ObjectStoreStreamName(o.Config.Bucket))
			}
		}
		p.Publish = append(p.Publish, subjectReads(l, s)...)
		p.Publish = append(p.Publish, serviceSubjects(s)...)
		if f, ok := exporterFamily(s); ok {
			p.Subscribe = append(p.Subscribe, ConnTestSubject(f))
			p.AllowResponses = true
		}
		slices.Sort(p.Publish)
		p.Publish = slices.Compact(p.Publish)
		out = append(out, p)
	}
	return out
}

// subjectReads is what reading the streams a service subscribes to needs:
// its durable consumer where it has one, any consumer otherwise.
func subjectReads(l Listing, s busv1.Service) []string {
	var out []string
	for _, e := range l.Subjects {
		if e.Stream == "" || !slices.Contains(e.Subscribers, s) {
			continue
		}
		i := slices.IndexFunc(l.Consumers, func(c ConsumerEntry) bool { return c.Service == s && c.Stream == e.Stream })
		if i >= 0 {
			out = append(out, durableRead(e.Stream, l.Consumers[i].Config.Durable)...)
		} else {
			out = append(out, streamRead(e.Stream)...)
		}
	}
	return out
}

// serviceSubjects are the subjects and keys a service writes, narrowed to its
// own service or family token where the name has one.
func serviceSubjects(s busv1.Service) []string {
	status := Root + "." + kindStatus + "." + EncodeToken(string(s)) + ".>"
	switch s {
	case busv1.ServiceControl:
		return []string{"$KV." + BucketConfig + ".>", ConnTestSubjects}
	case busv1.ServiceCollector:
		return []string{"$KV." + BucketRows + ".>", status, "$KV." + BucketLeases + "." + ShardKeysFilter(s)}
	case busv1.ServiceAggregator:
		// It reads its own history (restart, garbage collection) and trims
		// an inventory's history over its byte limit; a backfill's replayer
		// sets and clears its hold on the binding's export state. Its
		// shards' members and leases are keys under its name; the single
		// lease of earlier releases is held retired (ShardKeys, LeaseKey).
		return append(streamRead(StreamSnapshots), SnapshotSubjects, status, "$KV."+BucketLeases+"."+LeaseKey(s),
			"$KV."+BucketLeases+"."+ShardKeysFilter(s),
			"$JS.API.STREAM.PURGE."+StreamSnapshots, "$KV."+BucketExportState+".>")
	case busv1.ServiceQuery:
		// Read-only: the snapshot history and the objects its events
		// reference, nothing else (no status, no keys); the dead letters
		// come from subjectReads (it subscribes to them).
		return append(streamRead(StreamSnapshots), streamRead(ObjectStoreStreamName(ObjectStoreEnvelopes))...)
	}
	f, _ := exporterFamily(s)
	fam := EncodeToken(string(f))
	return []string{
		status,
		Root + "." + kindDeadLetter + "." + fam + ".>",
		"$KV." + BucketExportState + ".*.*." + fam + ".*.*",
	}
}

// exporterFamily returns the family a service exports, if it is an exporter.
func exporterFamily(s busv1.Service) (busv1.Family, bool) {
	for _, f := range busv1.Families() {
		if f.Exporter() == s {
			return f, true
		}
	}
	return "", false
}
