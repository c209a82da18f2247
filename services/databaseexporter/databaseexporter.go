package databaseexporter

import (
	"context"
	"flag"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/services/databaseexporter/internal/bigquery"
	"kollect.dev/kollect/services/databaseexporter/internal/mongodb"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

// Config configures the database exporter.
type Config struct {
	exporter.ServiceConfig
}

// DefaultConfig returns the database family's service defaults.
func DefaultConfig() Config {
	return Config{ServiceConfig: exporter.DefaultServiceConfig(busv1.FamilyDatabase)}
}

// BindFlags registers a flag for every setting, defaulting to c's values.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	c.ServiceConfig.BindFlags(fs)
}

// Backends returns the family's backends configured by c. The imports of
// this file are the list of database SDKs in the binary.
func Backends(c Config) []backend.Backend {
	p := c.Egress()
	return []backend.Backend{postgres.Backend{Egress: p}, mongodb.Backend{Egress: p}, bigquery.Backend{Egress: p}}
}

// Run exports snapshot events to database sinks until ctx ends.
func Run(ctx context.Context, c Config) error {
	return exporter.Serve(ctx, c.ServiceConfig, Backends(c)...)
}
