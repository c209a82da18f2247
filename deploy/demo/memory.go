package demo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// chartValues names each service's values block in charts/kollect/values.yaml.
var chartValues = map[string][]string{
	"control": {"control"}, "collector": {"collector"}, "aggregator": {"aggregator"},
	"snapshotexporter": {"exporters", "snapshot"}, "databaseexporter": {"exporters", "database"},
	"eventexporter": {"exporters", "event"},
}

// ChartMemoryLimits returns each service's container memory limit in the
// chart's default values (resources.limits.memory), so that processes
// started here get the soft memory limit a default install gives them.
func ChartMemoryLimits(root string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "charts", "kollect", "values.yaml"))
	if err != nil {
		return nil, fmt.Errorf("read the chart's values: %w", err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(b, &values); err != nil {
		return nil, fmt.Errorf("decode the chart's values: %w", err)
	}
	out := map[string]string{}
	for _, name := range Services {
		v := any(values)
		for _, k := range append(slices.Clone(chartValues[name]), "resources", "limits", "memory") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if s, ok := v.(string); ok {
			out[name] = s
		}
	}
	return out, nil
}

// ParseMemoryLimits reads a -memory-limit setting over defaults: "" keeps
// defaults, "off" gives no service a limit, a quantity ("256Mi") sets every
// service's, and "collector=256Mi,aggregator=300Mi" sets those services'
// and keeps the others' defaults.
func ParseMemoryLimits(s string, defaults map[string]string) (map[string]string, error) {
	out := map[string]string{}
	switch s = strings.TrimSpace(s); s {
	case "off":
		return out, nil
	case "":
		for k, v := range defaults {
			out[k] = v
		}
		return out, nil
	}
	if !strings.Contains(s, "=") {
		if _, err := resource.ParseQuantity(s); err != nil {
			return nil, fmt.Errorf("memory limit %q: %w", s, err)
		}
		for _, name := range Services {
			out[name] = s
		}
		return out, nil
	}
	for k, v := range defaults {
		out[k] = v
	}
	for _, kv := range strings.Split(s, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if !slices.Contains(Services, name) {
			return nil, fmt.Errorf("memory limit %q: unknown service %q (want one of %v)", kv, name, Services)
		}
		if _, err := resource.ParseQuantity(q); err != nil {
			return nil, fmt.Errorf("memory limit of %s %q: %w", name, q, err)
		}
		out[name] = q
	}
	return out, nil
}
