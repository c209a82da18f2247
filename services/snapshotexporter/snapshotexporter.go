package snapshotexporter

import (
	"context"
	"flag"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/services/snapshotexporter/internal/azureblob"
	"kollect.dev/kollect/services/snapshotexporter/internal/gcs"
	"kollect.dev/kollect/services/snapshotexporter/internal/git"
	"kollect.dev/kollect/services/snapshotexporter/internal/gitlab"
	"kollect.dev/kollect/services/snapshotexporter/internal/s3"
)

// Config configures the snapshot exporter.
type Config struct {
	exporter.ServiceConfig
	// GitCacheDir is where the Git backend unpacks a fetched branch tip
	// before keeping its trees; "" unpacks in memory.
	GitCacheDir string
	// AllowFileSinks lets git sinks use file:// repositories on the
	// exporter's own file system (tests and `kollect dev`; never in a
	// shared cluster: a tenant would read and write the exporter's files).
	AllowFileSinks bool
}

// DefaultConfig returns the snapshot family's service defaults.
func DefaultConfig() Config {
	return Config{ServiceConfig: exporter.DefaultServiceConfig(busv1.FamilySnapshot)}
}

// BindFlags registers a flag for every setting, defaulting to c's values.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	c.ServiceConfig.BindFlags(fs)
	fs.StringVar(&c.GitCacheDir, "git-cache-dir", c.GitCacheDir, "Folder where Git fetches unpack a branch tip (nothing stays there); empty unpacks in memory.")
	fs.BoolVar(&c.AllowFileSinks, "allow-file-sinks", c.AllowFileSinks, "Let git sinks use file:// repositories on the exporter's file system (tests and development only).")
}

// Backends returns the family's backends configured by c. The imports of
// this file are the list of sink SDKs in the binary.
func Backends(c Config) []backend.Backend {
	p := c.Egress()
	p.AllowLocalFiles = c.AllowFileSinks
	return []backend.Backend{
		&git.Backend{Egress: p, CacheDir: c.GitCacheDir},
		gitlab.Backend{Egress: p},
		s3.Backend{Egress: p},
		gcs.Backend{Egress: p},
		azureblob.Backend{Egress: p},
	}
}

// Run exports snapshot events to snapshot sinks until ctx ends.
func Run(ctx context.Context, c Config) error {
	return exporter.Serve(ctx, c.ServiceConfig, Backends(c)...)
}
