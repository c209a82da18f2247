// Package gitlab is the gitlab snapshot sink backend: it writes the files of
// docs/contract.md "Projections / Git" (rendered by package tree, the same files
// the git sink writes) to a GitLab project through the GitLab REST API v4,
// with a small client of its own (net/http and encoding/json, no SDK).
// It does not render files (package tree does), and does not clone or
// push: every change is one call of GitLab's commits API.
//
// # Writing
//
// A write reads the inventory's tree.State from the branch, ignores an
// older revision (unless it is a replay), renders the snapshot, lists the
// folders the inventory's files live in, and plans with tree.Plan. Files
// are compared by Git blob id: the listing's id of a file against the Git
// hash of the rendered bytes, so no file content is downloaded. When
// nothing changed there is no commit; otherwise one commit holds every
// create, update and delete plus the State, authored kollect
// <kollect@kollect.dev>, subject "chore({cluster}/{namespace}/{name}):
// export {itemCount} items @ {checksum 12 hex}" and the trailers
// Kollect-Revision and Kollect-Checksum. A deleted inventory's files and
// State go in one commit. A commit GitLab refuses with 400 (someone changed
// the files in between) is planned again once from the branch's new
// content; a second refusal is a transient error.
//
// # Branches and merge requests
//
// Mode direct commits to spec.gitlab.branch (default: the project's
// default branch); a missing branch is created from the default branch by
// the commit itself (start_branch), unless provisioning.mode is existing.
// Mode merge_request commits to <branchPrefix><cluster>/<namespace>/<name>
// (a cluster inventory's namespace is _cluster), created from the target
// branch by the first commit that has something to propose, planned
// against the branch's content (the target's while it does not exist), and
// keeps one merge request open from it to the target, titled from
// titleTemplate. Merge requests are opened with remove_source_branch, so
// after a merge the next change starts a new branch and merge request from
// the target.
//
// # Errors
//
// 401 and 403 answers and an unknown project are sink.Permanent; 429, 5xx,
// timeouts and network errors are transient. Every request goes through the
// Backend's egress.Policy HTTP client with the TLS configuration of
// spec.tls; the token travels in the PRIVATE-TOKEN header and never in an
// error.
package gitlab
