// Package tree renders an inventory snapshot as a tree of files: the
// projection of docs/contract.md "Projections / Git" shared by the Git and GitLab
// snapshot sinks and by `kollect collect --output`.
//
// It owns the layouts (document, perResource, split), the contents (item,
// attributes, manifest), the formats (yaml, json, ndjson), path templates
// and their sanitising, the per-inventory State a tree sink records next to
// the files, and Plan, which turns the previous State and the new files into
// writes and removals, FileSet, the State's file list (sharded when long),
// and Index, which keeps a perResource inventory's paths and blobs so that
// a delta renders only its rows, and Builder, which makes an Index and its
// files from a full snapshot's rows one at a time. It does not talk to Git,
// GitLab or a file system: callers store the files.
//
// Decisions, documented for users in docs/sinks/git.md:
//   - An empty namespace (a cluster-scoped object, a ClusterInventory, a
//     ClusterTarget) renders as "_cluster"; an empty group as "core"; any
//     other empty value as "_". Placeholder values keep [A-Za-z0-9._-] and
//     turn every other character (including "/") into "_"; a value starting
//     with "." gets a "_" prefix, so no value can climb out of its segment
//     or hide as a dot file. {kind} is lower-cased.
//   - In the per-row template, {namespace} and {name} are the inventory's,
//     as in the document template; the source object is {sourceNamespace}
//     and {sourceName}.
//   - Rows rendering to one path all get "--<uid>" before the extension; if
//     that still collides (one object collected by two Targets), a further
//     "--<8 hex of sha256(targetNamespace/targetName/uid)>". Never an error.
//   - Content manifest: when the row holds a full-resource export in the
//     attribute "resource" (the default export.as), the file is that object
//     with apiVersion, kind and metadata name/namespace/uid restored;
//     otherwise {apiVersion, kind, metadata{name, namespace, uid},
//     attributes}.
//   - The JSON document is the envelope with items in the chosen content;
//     YAML and NDJSON documents are the item list only. The split index is
//     the envelope metadata plus "files" (path and identity of each row);
//     its NDJSON form is a metadata line followed by one line per file.
//   - The State lives at .kollect/<cluster>/<namespace or _cluster>/<name>.json;
//     templates may not render into .kollect/ or any .git segment.
package tree
