package app

// Log keys every service uses, in lowerCamel, so that every line names
// things the same way (STYLE: "keys in lowerCamel from one place").
const (
	// KeyService names the reporting service; LogOptions.Logger sets it
	// once per process.
	KeyService = "service"
	// KeyTarget is a Target as <namespace>/<name>, or a ClusterTarget's name.
	KeyTarget = "target"
	// KeyInventory is an Inventory as <namespace>/<name>, or a
	// ClusterInventory's name.
	KeyInventory = "inventory"
	// KeySink is a sink reference.
	KeySink = "sink"
	// KeyRevision is a snapshot revision.
	KeyRevision = "revision"
	// KeyKind is the kind of a Kollect object (KollectTarget, ...).
	KeyKind = "kind"
	// KeyGeneration is the generation of the object acted on.
	KeyGeneration = "generation"
	// KeyGVK is a watched group/version/kind.
	KeyGVK = "gvk"
	// KeyObject is a watched object as <namespace>/<name>.
	KeyObject = "object"
	// KeyNamespace is a watched namespace.
	KeyNamespace = "namespace"
	// KeyKey is a KV key.
	KeyKey = "key"
	// KeySubject is a bus subject.
	KeySubject = "subject"
	// KeyIdentity is this replica's leader-election identity.
	KeyIdentity = "identity"
	// KeyAddress is a listen address.
	KeyAddress = "address"
	// KeyCount is a number of things handled.
	KeyCount = "count"
	// KeyReason is why something waits or failed, as text.
	KeyReason = "reason"
)
