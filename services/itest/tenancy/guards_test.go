package tenancy

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// foreignRows returns a guard that fails when Target ns/name holds a row of
// an object outside the allowed namespaces, or, when kinds is set, of one
// of those kinds outside them.
func foreignRows(ctx context.Context, ns, name string, allowed []string, kinds ...string) func() error {
	return func() error {
		rows, err := rowsOf(ctx, ns, name)
		if err != nil {
			return err
		}
		var leaked []string
		for _, r := range rows {
			if slices.Contains(allowed, r.Namespace) || (len(kinds) > 0 && !slices.Contains(kinds, r.Kind)) {
				continue
			}
			leaked = append(leaked, fmt.Sprintf("%s %s/%s", r.Kind, r.Namespace, r.Name))
		}
		if len(leaked) > 0 {
			return fmt.Errorf("Target %s/%s collected %s", ns, name, strings.Join(leaked, ", "))
		}
		return nil
	}
}

// canaryAt returns a guard that fails when any of the recorders received
// any form of any of needles.
func canaryAt(needles []string, rs ...*recorder) func() error {
	return func() error {
		var places []place
		for _, r := range rs {
			places = append(places, place{"endpoint " + r.name, r.received()})
		}
		if found := search(places, needles); len(found) > 0 {
			return fmt.Errorf("%v", found)
		}
		return nil
	}
}
