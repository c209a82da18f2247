package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"kollect.dev/kollect/services/cli/climain"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/cli/internal/collect"
)

// runGetAt prints one inventory's rows at a time or revision of its
// history (get inventory NAME --at TIME | --revision N).
func runGetAt(ctx context.Context, s Streams, kube *kubeFlags, k getKind, f getFlags, args []string) error {
	if k.names[0] != "inventories" || (len(args) != 2) == (f.cluster == "") {
		return &climain.ExitError{Code: 2, Err: errors.New("--at and --revision: name one inventory: get inventory NAMESPACE/NAME --at TIME, or get inventory --cluster-inventory NAME --at TIME")}
	}
	if f.allNamespaces {
		return &climain.ExitError{Code: 2, Err: errors.New("--at and --revision read one inventory: drop -A/--all-namespaces")}
	}
	q := url.Values{}
	if f.at != "" {
		if err := revisionOrTime("--at", f.at); err != nil {
			return &climain.ExitError{Code: 2, Err: err}
		}
		q.Set("at", f.at)
	} else {
		if err := revisionOrTime("--revision", f.revision); err != nil {
			return &climain.ExitError{Code: 2, Err: err}
		}
		q.Set("revision", f.revision)
	}
	inv, err := historyTarget(kube, args[1:], f.cluster)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	h, err := newHistoryAPI(kube, inv)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	rows, err := h.rows(ctx, q)
	if err != nil {
		return &climain.ExitError{Code: 1, Err: err}
	}
	switch f.output {
	case "ndjson":
		return printNDJSON(s.Out, rows.Items)
	case "json", "yaml":
		return printDoc(s.Out, rows, f.output)
	}
	r := rows.Revision
	fmt.Fprintf(s.Err, "%s: revision %d of %s, %d rows\n", h.what(), r.Revision, r.Time.UTC().Format("2006-01-02T15:04:05Z"), r.ItemCount)
	rec := collect.Record{Inventory: h.inv.String(), Envelope: busv1.Envelope{Items: rows.Items}}
	return printRows(s.Out, []collect.Record{rec}, nil, f.output == "wide", f.noHeaders)
}
