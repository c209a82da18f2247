package app

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// EnvMemoryLimit holds the process's memory limit in bytes or as a quantity
// when --memory-limit is not given: the chart and kustomize set it from the
// container's resources.limits.memory (resourceFieldRef).
const EnvMemoryLimit = "KOLLECT_MEMORY_LIMIT"

// Bytes is a memory size set from a Kubernetes quantity ("256Mi", "1G",
// "268435456"); it is a flag.Value.
type Bytes int64

// String formats b as a binary-SI quantity ("256Mi"), "0" when unset.
func (b *Bytes) String() string {
	if b == nil {
		return "0"
	}
	return resource.NewQuantity(int64(*b), resource.BinarySI).String()
}

// Set parses a quantity; it refuses negative and fractional byte counts.
func (b *Bytes) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	*b = Bytes(n)
	return nil
}

func parseBytes(s string) (int64, error) {
	q, err := resource.ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("parse memory quantity %q: %w", s, err)
	}
	n, ok := q.AsInt64()
	if !ok || n < 0 {
		return 0, fmt.Errorf("parse memory quantity %q: want a whole, non-negative number of bytes", s)
	}
	return n, nil
}

// ApplyMemoryLimit sets the Go runtime's soft memory limit to
// MemoryLimitRatio of the process's limit: --memory-limit, else
// $KOLLECT_MEMORY_LIMIT. When GOMEMLIMIT is set the runtime already applied
// it at start and it is left alone. It returns the limit in force and where
// it came from ("" and no change when nothing sets one).
func (p Process) ApplyMemoryLimit() (int64, string, error) {
	if p.MemoryLimitRatio <= 0 || p.MemoryLimitRatio > 1 {
		return 0, "", fmt.Errorf("memory-limit-ratio %v: want a share in (0, 1]", p.MemoryLimitRatio)
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1), "GOMEMLIMIT", nil
	}
	limit, source := int64(p.MemoryLimit), "--memory-limit"
	if limit == 0 {
		env := os.Getenv(EnvMemoryLimit)
		if env == "" {
			return debug.SetMemoryLimit(-1), "", nil
		}
		n, err := parseBytes(env)
		if err != nil {
			return 0, "", fmt.Errorf("read $%s: %w", EnvMemoryLimit, err)
		}
		limit, source = n, "$"+EnvMemoryLimit
	}
	if limit == 0 {
		return debug.SetMemoryLimit(-1), "", nil
	}
	soft := int64(math.Min(float64(limit)*p.MemoryLimitRatio, math.MaxInt64))
	debug.SetMemoryLimit(soft)
	return soft, source, nil
}
