// Package configwatch follows the KollectTarget and KollectClusterTarget
// entries of the compiled-config bucket and hands them to a Handler,
// level-based: after every (re)start of the watch the Handler first receives
// the whole desired state (Reset), then each put and delete in order. A
// failed watch or a failing Handler restarts the watch with backoff, so the
// Handler converges again from a full Reset.
//
// configwatch does not compile or apply Targets; the engine does.
package configwatch
