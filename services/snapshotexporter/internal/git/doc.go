// Package git is the git snapshot sink backend: it commits each inventory
// snapshot, rendered by pkg/tree, to a branch of a Git repository reached
// over http(s)://, ssh://, user@host:path or file:// (go-git v5).
//
// It owns the repository side: credentials from the sink's Secret, the
// local mirror of each repository (CacheDir, or memory), building one
// commit per export from the mirror's objects without a worktree, the
// push policies (Commit with rebase-and-retry over concurrent writers, or
// ForcePush), and the classification of Git errors as permanent or
// transient. What the files contain and where they go is pkg/tree's; the
// exporter runtime (retries, state, status) is pkg/exporter's.
//
// Every network connection goes through the Backend's egress.Policy:
//   - http(s): go-git only lets a program install one HTTP client per
//     scheme for the whole process (client.InstallProtocol). The backend
//     installs, once, a client whose transport is chosen per request from
//     the request's context; each sink puts its own transport (its
//     Policy's dialer and its spec.tls) into the context of every Git call.
//     A request without one (go-git used by other code in the same
//     process) uses http.DefaultTransport, go-git's own default.
//   - ssh: go-git dials SSH itself, so the policy is checked on the
//     connected address in the host key callback, before any credential
//     is sent.
//   - file:// touches the exporter's own file system, so it needs the
//     in-cluster opt-in (Policy.AllowPrivate). git:// is refused: it has
//     neither authentication nor a way to route its dial through the
//     policy.
//
// docs/sinks/git.md is the user's guide.
package git
