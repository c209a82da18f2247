package objectstore

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// Formats and compressions of spec.serialization.
const (
	FormatJSON    = "json"
	FormatNDJSON  = "ndjson"
	FormatParquet = "parquet"

	CompressionNone = "none"
	CompressionGzip = "gzip"
	CompressionZstd = "zstd"
)

// DefaultPathTemplate is the object key, under the prefix, of JSON and
// NDJSON snapshots when spec.pathTemplate is unset.
const DefaultPathTemplate = "inventory/{namespace}/{name}{extension}"

// ClusterNamespace stands for the empty namespace of a ClusterInventory in
// keys.
const ClusterNamespace = "_cluster"

// Layout says which objects a snapshot becomes.
type Layout struct {
	// Prefix is prepended to every key, without leading or trailing "/";
	// empty for the bucket root.
	Prefix string
	// Format is FormatJSON, FormatNDJSON or FormatParquet.
	Format string
	// Compression is CompressionNone, CompressionGzip or CompressionZstd.
	Compression string
	// PathTemplate is the JSON and NDJSON key template.
	PathTemplate string
	// HotAttributes get their own attr_<name> Parquet column.
	HotAttributes []string
}

var placeholder = regexp.MustCompile(`\{[^{}]*\}`)

// NewLayout returns the layout of spec with the endpoint's prefix, checking
// the fields admission checks; an invalid field is a sink.Permanent error
// naming it.
func NewLayout(spec *v1alpha1.KollectSnapshotSinkSpec, prefix string) (Layout, error) {
	l := Layout{Prefix: strings.Trim(prefix, "/"), Format: FormatJSON, Compression: CompressionNone,
		PathTemplate: DefaultPathTemplate}
	var osFormat string
	if spec.ObjectStore != nil {
		osFormat, l.HotAttributes = spec.ObjectStore.Format, spec.ObjectStore.HotAttributes
	}
	if ser := spec.Serialization; ser != nil {
		if ser.Format != "" && osFormat != "" && ser.Format != osFormat {
			return l, invalid("objectStore.format %q and serialization.format %q differ", osFormat, ser.Format)
		}
		if ser.Format != "" {
			osFormat = ser.Format
		}
		if ser.Compression != "" {
			l.Compression = ser.Compression
		}
	}
	if osFormat != "" {
		l.Format = osFormat
	}
	if err := l.validate(spec.PathTemplate); err != nil {
		return l, err
	}
	if spec.PathTemplate != "" {
		l.PathTemplate = spec.PathTemplate
	}
	return l, nil
}

func (l *Layout) validate(tmpl string) error {
	switch {
	case l.Format != FormatJSON && l.Format != FormatNDJSON && l.Format != FormatParquet:
		return invalid("serialization.format %q: want json, ndjson or parquet", l.Format)
	case l.Compression != CompressionNone && l.Compression != CompressionGzip && l.Compression != CompressionZstd:
		return invalid("serialization.compression %q: want none, gzip or zstd", l.Compression)
	case len(l.HotAttributes) > 0 && l.Format != FormatParquet:
		return invalid("objectStore.hotAttributes need the parquet format")
	case tmpl != "" && l.Format == FormatParquet:
		return invalid("pathTemplate does not apply to parquet")
	}
	seen := map[string]bool{}
	for _, a := range l.HotAttributes {
		if a == "" || seen[a] {
			return invalid("objectStore.hotAttributes: %q is empty or listed twice", a)
		}
		seen[a] = true
	}
	if tmpl == "" {
		return nil
	}
	if !strings.Contains(tmpl, "{namespace}") || !strings.Contains(tmpl, "{name}") {
		return invalid("pathTemplate %q must contain {namespace} and {name}", tmpl)
	}
	if strings.Contains(tmpl, "..") || strings.HasPrefix(tmpl, "/") {
		return invalid("pathTemplate %q must not contain '..' or start with '/'", tmpl)
	}
	for _, p := range placeholder.FindAllString(tmpl, -1) {
		switch p {
		case "{cluster}", "{namespace}", "{name}", "{generation}", "{extension}":
		default:
			return invalid("pathTemplate placeholder %s: want {cluster}, {namespace}, {name}, {generation} or {extension}", p)
		}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return sink.Permanent(fmt.Errorf("invalid sink spec: "+format, args...))
}

// Extension is the file extension of JSON and NDJSON objects, with the
// compression's suffix; Parquet files are always .parquet (compression is
// inside the file).
func (l *Layout) Extension() string {
	if l.Format == FormatParquet {
		return ".parquet"
	}
	ext := "." + l.Format
	switch l.Compression {
	case CompressionGzip:
		ext += ".gz"
	case CompressionZstd:
		ext += ".zst"
	}
	return ext
}

// DocumentKey is the key of the JSON or NDJSON object of env.
func (l *Layout) DocumentKey(env *busv1.Envelope) string {
	r := strings.NewReplacer("{cluster}", env.Cluster, "{namespace}", keyNamespace(env.Inventory.Namespace),
		"{name}", env.Inventory.Name, "{generation}", strconv.FormatInt(env.Generation, 10),
		"{extension}", l.Extension())
	return l.join(r.Replace(l.PathTemplate))
}

// The Hive partition keys of the Parquet folders. They are distinct from
// every column name (the fixed columns and attr_<name>), so that an engine
// reading the folders as Hive partitions (DuckDB, Athena, Spark, Trino) adds
// them as columns of their own instead of replacing a column's value with
// the folder's.
const (
	PartitionCluster   = "part_cluster"
	PartitionNamespace = "part_namespace"
	PartitionInventory = "part_inventory"
)

// ParquetFolder is the folder (ending in "/") holding the Parquet files and
// pointer of env's inventory.
func (l *Layout) ParquetFolder(env *busv1.Envelope) string {
	return l.join(fmt.Sprintf("inventory/%s=%s/%s=%s/%s=%s/", PartitionCluster, env.Cluster,
		PartitionNamespace, keyNamespace(env.Inventory.Namespace), PartitionInventory, env.Inventory.Name))
}

// LegacyParquetFolder is the folder of env's inventory in the layout before
// the part_ partition keys (cluster=<c>/ns=<ns>/name=<inv>/), whose keys
// clashed with the cluster and name columns. The sink never writes there: it
// deletes the stale pointer of that folder on its first write in the new
// layout, and the whole folder when the inventory is deleted.
func (l *Layout) LegacyParquetFolder(env *busv1.Envelope) string {
	return l.join(fmt.Sprintf("inventory/cluster=%s/ns=%s/name=%s/", env.Cluster,
		keyNamespace(env.Inventory.Namespace), env.Inventory.Name))
}

// ParquetKey is the key of env's Parquet file.
func (l *Layout) ParquetKey(env *busv1.Envelope) string {
	return l.ParquetFolder(env) + "revision=" + strconv.FormatUint(env.Revision, 10) + ".parquet"
}

// StateKey is the key of the state object of env's inventory: the Parquet
// pointer, or the hidden state object of JSON and NDJSON.
func (l *Layout) StateKey(env *busv1.Envelope) string {
	if l.Format == FormatParquet {
		return l.ParquetFolder(env) + LatestName
	}
	return l.join(fmt.Sprintf(".kollect/state/cluster=%s/ns=%s/name=%s.json", env.Cluster,
		keyNamespace(env.Inventory.Namespace), env.Inventory.Name))
}

// LatestName is the name of the Parquet pointer object in an inventory's
// folder.
const LatestName = "_latest.json"

func (l *Layout) join(key string) string {
	if l.Prefix == "" {
		return key
	}
	return l.Prefix + "/" + key
}

func keyNamespace(ns string) string {
	if ns == "" {
		return ClusterNamespace
	}
	return ns
}
