// Package git is the git snapshot sink backend: it commits each inventory
// snapshot, rendered by pkg/tree, to a branch of a Git repository reached
// over http(s)://, ssh://, user@host:path or file:// (go-git v5).
//
// It owns the repository side: credentials from the sink's Secret, the
// local mirror of each repository (CacheDir, or memory), building one
// commit per export from the mirror's objects without a worktree, the
// push policies (Commit with rebase-and-retry over concurrent writers, or
// ForcePush), and the classification of Git errors as permanent or
// transient. A perResource full write streams (stream.go): rows are
// rendered one at a time by a tree.Builder and their blobs spilled to a
// file (spill.go) that the push's pack reads back. What the files contain
// and where they go is pkg/tree's; the exporter runtime (retries, state,
// status) is pkg/exporter's.
//
// Every network connection goes through the Backend's egress.Policy:
//   - http(s): go-git only lets a program install one HTTP client per
//     scheme for the whole process (client.InstallProtocol). The backend
//     installs, at init, a client whose transport is chosen per request
//     from the request's context; each sink puts its own transport (its
//     Policy's dialer and its spec.tls) into the context of every Git call.
//     A request without one is refused (egress.ErrDenied), never sent.
//   - ssh: go-git dials SSH itself; its one per-call hook is the proxy of
//     the call's options. Every SSH call names a proxy URL of the scheme
//     kollect-egress carrying the policy, whose registered dialer dials
//     through Policy.DialContext: the address is checked before the TCP
//     connection and the key exchange. The installed SSH transport refuses
//     a session without such a proxy URL. The host key callback checks the
//     connected address again.
//   - file:// touches the exporter's own file system (other tenants'
//     mirrors included), so it needs its own opt-in
//     (Policy.AllowLocalFiles, --allow-file-sinks: tests and development);
//     the in-cluster opt-in does not admit it. git:// is refused: it has
//     neither authentication nor a way to route its dial through the
//     policy.
//
// docs/sinks/git.md is the user's guide.
package git
