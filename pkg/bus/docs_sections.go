package bus

import (
	"encoding/json"
	"strings"
)

func writeEncoding(w writer) {
	w("## How names become tokens\n\n")
	w("Subject tokens cannot contain `.`, `*`, `>` or whitespace, and KV keys allow only\n")
	w("`[-/_=.a-zA-Z0-9]`. Every Kubernetes name in a subject, key or object name is encoded to a token\n")
	w("using only `[-_=a-zA-Z0-9]`, valid in both, and decodes back exactly:\n\n")
	w("| input | rule | token |\n|---|---|---|\n")
	for _, e := range []struct{ in, rule string }{
		{"team-a", "letters, digits and `-` are kept"},
		{"web.apps", "`.` becomes `_`"},
		{"", "the empty namespace of a cluster-scoped object"},
		{"a_b", "any other byte, `_` and `=` included, is `=` and two upper-case hex digits"},
		{"ns/ä", "multi-byte characters are escaped byte by byte"},
	} {
		in := "`" + e.in + "`"
		if e.in == "" {
			in = "(empty)"
		}
		w("| %s | %s | `%s` |\n", in, e.rule, EncodeToken(e.in))
	}
	w("\nSo a DNS-1123 name reads as itself with dots as underscores, and a token never contains `.`:\n")
	w("wildcards such as `kollect.snapshots.team-a.*` select exactly one namespace's inventories.\n\n")
}

func (l Listing) writePermissions(w writer) {
	w("## Permissions per service\n\n")
	w("Give each service its own NATS user (or account user) with these permissions, in nats-server\n")
	w("configuration syntax. KV and object-store reads are granted per bucket; writes are narrowed to\n")
	w("the service's own status subjects and, for exporters, to their family's dead letters and\n")
	w("export-state keys (the aggregator writes every export-state key too: a backfill's hold on a\n")
	w("binding). A test runs each service's bus operations as a user holding only these\n")
	w("permissions, and checks that writes outside them are refused. Provisioning needs `$JS.API.>`\n")
	w("(see above); `kollect replay` needs the read subjects listed here for `%s` and\n", StreamSnapshots)
	w("`%s`.\n\n", ObjectStoreStreamName(ObjectStoreEnvelopes))
	for _, p := range l.Permissions {
		w("### %s\n\n```\npermissions: {\n  publish: { allow: [\n", p.Service)
		for _, s := range p.Publish {
			w("    %q\n", s)
		}
		w("  ] }\n  subscribe: { allow: [\n")
		for _, s := range p.Subscribe {
			w("    %q\n", s)
		}
		w("  ] }\n")
		if p.AllowResponses {
			w("  allow_responses: true\n")
		}
		w("}\n```\n\n")
	}
}

func (l Listing) writeSizing(w writer) {
	o := l.Options
	w("## Sizing\n\n")
	w("- **Message size.** The server's `max_payload` must be at least %s (`MaxMessageBytes`). A row\n", size(int64(o.MaxMessageBytes)))
	w("  averages a few hundred bytes with attributes and a few KiB with a full resource, so an inline\n")
	w("  envelope holds roughly a few thousand rows; larger envelopes go to `%s`.\n", ObjectStoreEnvelopes)
	w("- **Snapshots.** The stream keeps at most %s events per inventory for %s, the ceiling of every\n",
		count(o.SnapshotHistory), age(o.SnapshotMaxAge))
	w("  inventory's `spec.history`; the aggregator trims each history to its own retention (by default 16\n")
	w("  revisions for 7 days, see [retention](retention.md)) at each collection. Plan `Σ retained revisions ×\n")
	w("  envelope size` (each event also carries its delta), at most `%s` per inline event (the aggregator\n",
		size(int64(o.MaxMessageBytes)))
	w("  keeps snapshots inline up to its `--max-message-bytes`, 256 KiB, and chunks larger ones). A periodic\n")
	w("  re-export publishes a small event per due binding that references the revision's envelope (stored\n")
	w("  once) and replaces the binding's previous one, so it adds no copy of the snapshot and at most one\n")
	w("  event per binding. `SnapshotMaxBytes` (%s) bounds the stream; each namespace's quota\n", size(o.SnapshotMaxBytes))
	w("  (aggregator `--namespace-bus-bytes`) keeps one tenant from using it all.\n")
	w("- **Large snapshots.** Stored as content-addressed chunks (about 256 rows each) and a manifest per\n")
	w("  revision; a manifest of more than about 64 chunks is a small root listing pages of about 64\n")
	w("  chunks, themselves content-addressed (`page.<sha256>`). A revision writes only the chunks and pages\n")
	w("  it changed and its root, and the aggregator deletes what no retained event references. Plan\n")
	w("  `large inventories × snapshot size × 2` plus the chunks the history changed (about 150 KB per\n")
	w("  one-row change at 100 000 rows); `EnvelopeStoreMaxBytes` (%s) bounds it.\n", size(o.EnvelopeStoreMaxBytes))
	w("- **Rows.** One value per collected object and Target: `objects × average row size` plus about\n")
	w("  100 bytes of key and header per entry; 100 000 objects of 1 KiB need about 110 MiB.\n")
	w("- **Config, status, export state.** One small value per custom resource, per (service, object,\n")
	w("  binding) and per binding: a few MiB for thousands of objects.\n")
	perInv, all := o.DeadLetterMaxMsgsPerInventory, o.DeadLetterMaxMsgs
	w("- **Dead letters.** Kept for %s, at most %s per exporter family and inventory (one subject each,\n",
		age(o.DeadLetterMaxAge), count(perInv))
	w("  `DeadLetterMaxMsgsPerInventory`): a new dead letter evicts the oldest of its own subject, so an\n")
	w("  inventory whose bindings keep failing evicts only its own dead letters, never another tenant's.\n")
	w("  The stream as a whole keeps at most %s (`DeadLetterMaxMsgs`) and then evicts the oldest of\n", count(all))
	w("  any inventory; that is %s / %s = %s full subjects, so in ordinary use (a few thousand\n",
		count(all), count(perInv), count(all/perInv))
	w("  inventories, a few of them failing at a time) the per-inventory bound bites first. A dead letter\n")
	w("  holds the failed event's subject, headers and a one-line reason, not the event: typically under\n")
	w("  1 KiB, so a full stream is about %d MiB per replica. Raise it (control's `--bus-dead-letters`) with the\n",
		(all+512)/1024)
	w("  number of inventories that may fail at once. Until namespaces have inventory quotas, one tenant\n")
	w("  with more than %s permanently failing inventories (and families) can still reach the stream-wide\n",
		count(all/perInv))
	w("  bound and evict other tenants' oldest dead letters. Provisioning applies both bounds to an\n")
	w("  existing stream in place: what fits is kept, a subject over the bound keeps its newest.\n")
	w("- **Replicas.** Every byte above is stored once per replica.\n\n")
}

func (l Listing) writeOptions(w writer) {
	o := l.Options
	w("## Provisioning options\n\n")
	w("`bus.Options` (defaults shown) sets every limit above.\n\n| option | default |\n|---|---|\n")
	for _, r := range [][2]string{
		{"Replicas", count(int64(o.Replicas))},
		{"Storage", storageName(o)},
		{"MaxMessageBytes", size(int64(o.MaxMessageBytes))},
		{"SnapshotHistory", count(o.SnapshotHistory)},
		{"SnapshotMaxAge", age(o.SnapshotMaxAge)},
		{"StatusMaxAge", age(o.StatusMaxAge)},
		{"DeadLetterMaxAge", age(o.DeadLetterMaxAge)},
		{"DeadLetterMaxMsgsPerInventory", count(o.DeadLetterMaxMsgsPerInventory)},
		{"DeadLetterMaxMsgs", count(o.DeadLetterMaxMsgs)},
		{"EnvelopeStoreMaxBytes", size(o.EnvelopeStoreMaxBytes)},
		{"ExporterAckWait", age(o.ExporterAckWait)},
		{"ExporterMaxAckPending", count(int64(o.ExporterMaxAckPending))},
	} {
		w("| `%s` | %s |\n", r[0], r[1])
	}
}

// indentJSON renders v as indented JSON; the jetstream config types always
// marshal.
func indentJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "marshal: " + err.Error()
	}
	return strings.TrimSpace(b.String())
}
