package bus

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Markdown renders the listing as docs/bus.md: what operators who run NATS
// themselves provision, which permissions each service needs, and how to size
// it. The output depends only on the listing, so the file can be checked for
// staleness.
func (l Listing) Markdown() []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# The Kollect bus\n\n")
	w("<!-- Generated from pkg/bus (Catalogue) by `go test ./pkg/bus -run TestDocs -update`. Do not edit. -->\n\n")
	w("Kollect's services talk over NATS JetStream. This page lists every stream, KV bucket, object store,\n")
	w("durable consumer and subject they use, the NATS permissions each service needs, and how to size\n")
	w("them. It is generated from the package that builds every name (`pkg/bus`), so it matches the code.\n")
	w("Message payloads are the JSON types of `api/bus/v1`.\n\n")
	l.writeProvisioning(w)
	l.writeStreams(w)
	l.writeBuckets(w)
	l.writeConsumers(w)
	l.writeSubjects(w)
	l.writeKeys(w)
	writeEncoding(w)
	l.writePermissions(w)
	l.writeSizing(w)
	l.writeOptions(w)
	return b.Bytes()
}

type writer func(format string, args ...any)

func (l Listing) writeProvisioning(w writer) {
	w("## Provisioning\n\n")
	w("`bus.Provision` creates or updates everything below; it is idempotent and converges after a limit\n")
	w("change, and never deletes anything. It needs the whole JetStream API (`$JS.API.>`). When the services' NATS users may not manage streams, run it once with an\n")
	w("administrative user, or create the objects by hand with the settings in these tables (the stream\n")
	w("and consumer configurations are also given as JSON for `nats stream add --config` and\n")
	w("`nats consumer add --config`). Everything uses %s storage and %d replica(s); in production use\n",
		storageName(l.Options), l.Options.Replicas)
	w("three replicas on a three-node cluster. control provisions at start (`--provision-bus`) with\n")
	w("`--bus-replicas`, `--bus-storage`, `--bus-snapshot-history`, `--bus-snapshot-max-age`,\n")
	w("`--bus-dead-letters-per-inventory` (`DeadLetterMaxMsgsPerInventory`) and `--bus-exporter-ack-wait`;\n")
	w("the Helm chart sets the first five from `control.bus` and picks 3 replicas when its own NATS runs\n")
	w("3 or more nodes.\n")
	w("control's leader checks every `--bus-check-interval` (10s) and provisions again whatever is missing\n")
	w("(lost NATS storage, a stream deleted by hand), so the bus heals without a restart. Marker keys\n")
	w("(`%s` in `%s`, and `%s.<shards>.<shard>`, one per collector shard, in `%s`) say that a bucket's content is complete;\n",
		ConfigCompleteKey, BucketConfig, RowsSyncedKey, BucketRows)
	w("see [operations.md](operations.md#losing-nats-data) for how the services use them.\n\n")
}

func (l Listing) writeStreams(w writer) {
	w("## Streams\n\n")
	w("| stream | subjects | kept per subject | max messages | max age | max message | duplicate window | purpose |\n")
	w("|---|---|---|---|---|---|---|---|\n")
	for _, s := range l.Streams {
		c := s.Config
		w("| `%s` | `%s` | %s | %s | %s | %s | %s | %s |\n", c.Name, strings.Join(c.Subjects, " "),
			count(c.MaxMsgsPerSubject), count(c.MaxMsgs), age(c.MaxAge), size(int64(c.MaxMsgSize)),
			age(c.Duplicates), s.Purpose)
	}
	w("\nAll streams keep limits retention, discard the oldest message when full and allow direct gets.\n\n")
	for _, s := range l.Streams {
		w("<details><summary><code>%s</code> as JSON</summary>\n\n```json\n%s\n```\n\n</details>\n\n",
			s.Config.Name, indentJSON(s.Config))
	}
}

func (l Listing) writeBuckets(w writer) {
	w("## KV buckets and object store\n\n")
	w("| bucket | kind | history | max value | max age | purpose | writers | readers |\n")
	w("|---|---|---|---|---|---|---|---|\n")
	for _, b := range l.Buckets {
		c := b.Config
		w("| `%s` | KV (stream `%s`) | %d | %s | %s | %s | %s | %s |\n", c.Bucket, KVStreamName(c.Bucket),
			c.History, size(int64(c.MaxValueSize)), age(c.TTL), b.Purpose, serviceList(b.Writers), serviceList(b.Readers))
	}
	for _, o := range l.ObjectStores {
		c := o.Config
		w("| `%s` | object store (stream `%s`) | n/a | %s total | %s | %s | %s | %s |\n", c.Bucket,
			ObjectStoreStreamName(c.Bucket), size(c.MaxBytes), age(c.TTL), o.Purpose,
			serviceList(o.Writers), serviceList(o.Readers))
	}
	w("\n")
}

func (l Listing) writeConsumers(w writer) {
	w("## Durable consumers\n\n")
	w("| consumer | stream | filter | deliver | ack | ack wait | max ack pending | purpose |\n")
	w("|---|---|---|---|---|---|---|---|\n")
	for _, c := range l.Consumers {
		k := c.Config
		w("| `%s` | `%s` | `%s` | %s | %s | %s | %d | %s |\n", k.Durable, c.Stream, k.FilterSubject,
			k.DeliverPolicy, k.AckPolicy, age(k.AckWait), k.MaxAckPending, c.Purpose)
	}
	w("\nExporters terminate a message that fails permanently and record it as a dead letter, so\n")
	w("redelivery is unlimited (max deliver -1) and a poison message never blocks a family.\n\n")
	for _, c := range l.Consumers {
		w("<details><summary><code>%s</code> as JSON</summary>\n\n```json\n%s\n```\n\n</details>\n\n",
			c.Config.Durable, indentJSON(c.Config))
	}
}

func (l Listing) writeSubjects(w writer) {
	w("## Subjects\n\n")
	w("| subject | example | payload (`api/bus/v1`) | stored in | publishers | subscribers | purpose |\n")
	w("|---|---|---|---|---|---|---|\n")
	for _, s := range l.Subjects {
		stream := "core NATS (request-reply)"
		if s.Stream != "" {
			stream = "`" + s.Stream + "`"
		}
		w("| `%s` | `%s` | `%s` | %s | %s | %s | %s |\n", s.Pattern, s.Example, s.Message, stream,
			serviceList(s.Publishers), serviceList(s.Subscribers), s.Purpose)
	}
	w("\n")
}

func (l Listing) writeKeys(w writer) {
	w("## Keys and object names\n\n")
	w("Each key has exactly one writer. A deleted object is a KV delete marker (tombstone), which\n")
	w("watchers see as a delete.\n\n")
	w("| bucket | key | example | value (`api/bus/v1`) | writer | readers |\n")
	w("|---|---|---|---|---|---|\n")
	for _, k := range l.Keys {
		w("| `%s` | `%s` | `%s` | `%s` | %s | %s |\n", k.Bucket, k.Pattern, k.Example, k.Message,
			serviceList([]busv1.Service{k.Writer}), serviceList(k.Readers))
	}
	w("\n")
}

func storageName(o Options) string {
	return strings.TrimSuffix(strings.ToLower(o.Storage.String()), "storage")
}

func serviceList(s []busv1.Service) string {
	if len(s) == 0 {
		return "(operators)"
	}
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}

func count(n int64) string {
	if n < 0 {
		return "unlimited"
	}
	return fmt.Sprint(n)
}

func age(d time.Duration) string {
	switch {
	case d == 0:
		return "unlimited"
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

func size(n int64) string {
	switch {
	case n < 0:
		return "unlimited"
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
