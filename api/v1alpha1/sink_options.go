package v1alpha1

import (
	"fmt"
	"maps"
	"slices"
)

// honouredOptions lists, by sink type, the spec.options names the type's
// backend honours. A type not listed honours none.
var honouredOptions = map[string][]string{
	string(DatabasePostgres): {"application_name", "lock_timeout", "statement_timeout"},
}

// HonouredOptions returns the spec.options names a sink of type typ
// honours, sorted; nil when it honours none.
func HonouredOptions(typ string) []string {
	return slices.Clone(honouredOptions[typ])
}

// UnknownOptionError returns an error naming the first spec.options name,
// in sorted order, a sink of type typ does not honour; nil when it honours
// every one.
func UnknownOptionError(typ string, options map[string]string) error {
	honoured := honouredOptions[typ]
	for _, k := range slices.Sorted(maps.Keys(options)) {
		if slices.Contains(honoured, k) {
			continue
		}
		if len(honoured) == 0 {
			return fmt.Errorf("spec.options.%s: %s sinks honour no options", k, typ)
		}
		return fmt.Errorf("spec.options.%s: not an option of %s sinks (they honour %v)", k, typ, honoured)
	}
	return nil
}
