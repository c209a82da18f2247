package exporter

import (
	"encoding/json"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// unknownOption refuses, permanently and by name, a spec.options entry
// the sink's type does not honour (v1alpha1.HonouredOptions), for every
// backend alike; control refuses them first, so this guards specs that
// reach an exporter another way.
func unknownOption(cfg busv1.SinkConfig) error {
	var head struct {
		Options map[string]string `json:"options"`
	}
	if err := json.Unmarshal(cfg.Spec, &head); err != nil {
		return nil //nolint:nilerr // the backend reports the undecodable spec
	}
	if err := v1alpha1.UnknownOptionError(cfg.Type, head.Options); err != nil {
		return sink.Permanent(err)
	}
	return nil
}
