package policy

import (
	"fmt"
	"maps"
	"slices"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
)

// secretNames is the redaction name rule (pkg/extract): an option whose
// name it matches looks like a credential.
var secretNames = extract.NewRules()

// OptionsViolation returns why a sink of type typ may not carry options,
// or "": a name that looks like a credential (by the redaction name rule)
// belongs in the sink's Secret, and a name the type does not honour is
// refused by name (v1alpha1.HonouredOptions).
func OptionsViolation(typ string, options map[string]string) string {
	for _, k := range slices.Sorted(maps.Keys(options)) {
		if secretNames.SensitiveKey(k) {
			return fmt.Sprintf("spec.options.%s: the name looks like a credential; options are not secret, "+
				"put credentials in the Secret named by spec.secretRef", k)
		}
	}
	if err := v1alpha1.UnknownOptionError(typ, options); err != nil {
		return err.Error()
	}
	return ""
}
