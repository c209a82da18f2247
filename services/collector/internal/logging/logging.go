package logging

import "kollect.dev/kollect/pkg/app"

// Log keys, in lowerCamel: the shared ones of pkg/app, named here so that
// the collector's packages keep their short import.
const (
	// KeyService names the reporting service.
	KeyService = app.KeyService
	// KeyTarget is a Target as <namespace>/<name>, or a ClusterTarget's name.
	KeyTarget = app.KeyTarget
	// KeyKind is the kind of a Kollect object (KollectTarget, ...).
	KeyKind = app.KeyKind
	// KeyGeneration is the generation of the object acted on.
	KeyGeneration = app.KeyGeneration
	// KeyGVK is a watched group/version/kind.
	KeyGVK = app.KeyGVK
	// KeyObject is a watched object as <namespace>/<name>.
	KeyObject = app.KeyObject
	// KeyNamespace is a watched namespace.
	KeyNamespace = app.KeyNamespace
	// KeyKey is a KV key.
	KeyKey = app.KeyKey
	// KeySubject is a bus subject.
	KeySubject = app.KeySubject
	// KeyIdentity is this replica's leader-election identity.
	KeyIdentity = app.KeyIdentity
	// KeyAddress is a listen address.
	KeyAddress = app.KeyAddress
	// KeyCount is a number of things handled.
	KeyCount = app.KeyCount
)
