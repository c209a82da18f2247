package extract

import (
	"flag"
	"strings"
)

// BindFlags registers the operator-level extraction flags on fs, so that every process that
// compiles Profiles (the collector, control, the CLI) takes the same settings:
//
//	--redact-keys (alias --scrub-keys)  comma-separated names added to the redaction name rule
//	--redact-no-defaults                drop the default names (the fixed rules stay)
//	--cel-cost-limit                    cost limit of one CEL evaluation; 0 uses the default
func (o *Options) BindFlags(fs *flag.FlagSet) {
	keys := func(s string) error {
		for _, k := range strings.Split(s, ",") {
			if k = strings.TrimSpace(k); k != "" {
				o.ScrubKeys = append(o.ScrubKeys, k)
			}
		}
		return nil
	}
	fs.Func("redact-keys", "Comma-separated names added to the redaction name rule of every Profile (repeatable).", keys)
	fs.Func("scrub-keys", "Alias of --redact-keys.", keys)
	fs.BoolVar(&o.NoDefaultScrubKeys, "redact-no-defaults", o.NoDefaultScrubKeys,
		"Drop the default sensitive names: only --redact-keys and the Profiles' scrubKeys name what is redacted. The last-applied annotation, reference blocks, value detectors and Secret data stay redacted.")
	fs.Uint64Var(&o.CELCostLimit, "cel-cost-limit", o.CELCostLimit, "Cost limit of one CEL evaluation; 0 uses the default.")
}
