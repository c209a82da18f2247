// Package heal runs control, the collector and the aggregator together
// (kollect dev on a bus the test holds) and takes NATS data away under
// them: the rows bucket, the config bucket. It checks that the bus heals
// and that no snapshot in between shows rows missing (issue 19 §2). The
// real SIGKILL of nats-server with its store wiped is the fault suite's.
package heal
