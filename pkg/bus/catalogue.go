package bus

import (
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Listing is every name on the bus with its purpose and settings, for a given
// Options. Provision creates exactly what it lists and docs/bus.md is
// rendered from it.
type Listing struct {
	// Options the settings were computed from.
	Options Options
	// Streams to provision.
	Streams []StreamEntry
	// Buckets are the KV buckets to provision.
	Buckets []BucketEntry
	// ObjectStores to provision.
	ObjectStores []ObjectStoreEntry
	// Consumers are the durable consumers to provision.
	Consumers []ConsumerEntry
	// Subjects are the subject patterns in use, stored or not.
	Subjects []SubjectEntry
	// Keys are the key patterns of each bucket.
	Keys []KeyEntry
	// Permissions are the NATS permissions each service needs.
	Permissions []ServicePermissions
}

// StreamEntry is one stream.
type StreamEntry struct {
	// Purpose says what the stream holds.
	Purpose string
	// Config is what Provision applies.
	Config jetstream.StreamConfig
}

// BucketEntry is one KV bucket.
type BucketEntry struct {
	// Purpose says what the bucket holds.
	Purpose string
	// Config is what Provision applies.
	Config jetstream.KeyValueConfig
	// Writers may put and delete keys; Readers may get and watch them.
	Writers, Readers []busv1.Service
}

// ObjectStoreEntry is one object store.
type ObjectStoreEntry struct {
	// Purpose says what the store holds.
	Purpose string
	// Config is what Provision applies.
	Config jetstream.ObjectStoreConfig
	// Writers may put and delete objects; Readers may get them.
	Writers, Readers []busv1.Service
}

// ConsumerEntry is one durable consumer.
type ConsumerEntry struct {
	// Stream the consumer reads.
	Stream string
	// Purpose says who uses the consumer and how.
	Purpose string
	// Service whose replicas share the consumer.
	Service busv1.Service
	// Config is what Provision applies.
	Config jetstream.ConsumerConfig
}

// SubjectEntry is one subject pattern.
type SubjectEntry struct {
	// Pattern shows the tokens as <placeholders>.
	Pattern string
	// Example is a subject built by the package's builder.
	Example string
	// Purpose says what is published there and when.
	Purpose string
	// Message is the api/bus/v1 type of the payload.
	Message string
	// Stream that stores the subject; empty for core NATS request-reply.
	Stream string
	// Publishers and Subscribers are the services that send and read.
	Publishers, Subscribers []busv1.Service
}

// KeyEntry is one key pattern of a bucket.
type KeyEntry struct {
	// Bucket holding the keys.
	Bucket string
	// Pattern shows the tokens as <placeholders>.
	Pattern string
	// Example is a key built by the package's builder.
	Example string
	// Message is the api/bus/v1 type of the value.
	Message string
	// Writer is the one service that writes these keys; "<family>-exporter"
	// when each exporter writes only its own family's keys.
	Writer busv1.Service
	// Readers are the services that read them.
	Readers []busv1.Service
}

// Catalogue lists every name on the bus with the default options.
func Catalogue() Listing {
	return DefaultOptions().Catalogue()
}

// Catalogue lists every name on the bus with these options.
func (o Options) Catalogue() Listing {
	l := Listing{
		Options:      o,
		Streams:      o.streams(),
		Buckets:      o.buckets(),
		ObjectStores: o.objectStores(),
		Consumers:    o.consumers(),
		Subjects:     subjectEntries(),
		Keys:         keyEntries(),
	}
	l.Permissions = permissions(l)
	return l
}

var exporters = []busv1.Service{busv1.ServiceSnapshotExporter, busv1.ServiceDatabaseExporter, busv1.ServiceEventExporter}

func services(s ...busv1.Service) []busv1.Service { return s }

func withExporters(s ...busv1.Service) []busv1.Service {
	return append(s, exporters...)
}
