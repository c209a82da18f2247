package bigquery

import (
	"fmt"
	"regexp"

	"kollect.dev/kollect/pkg/sink"
)

// maxName bounds dataset and table names.
const maxName = 1024

// The identifier patterns: those of the API (api/v1alpha1 BigQuerySink),
// anchored; names are also bounded by maxName. None admits a backquote, a quote, a backslash or
// whitespace, so a validated identifier cannot leave its backquotes.
var (
	projectPattern = regexp.MustCompile(`^[a-z][-a-z0-9.:]{0,126}[a-z0-9]$`)
	datasetPattern = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	tablePattern   = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// tableRef names one table of the sink's dataset.
type tableRef struct {
	Project, Dataset, Table string
}

// validate checks the three parts against the strict patterns.
func (r tableRef) validate() error {
	switch {
	case !projectPattern.MatchString(r.Project):
		return sink.Permanent(fmt.Errorf("spec.bigquery.project: %q is not a valid project id", r.Project))
	case len(r.Dataset) > maxName || !datasetPattern.MatchString(r.Dataset):
		return sink.Permanent(fmt.Errorf("spec.bigquery.dataset: %q is not a valid dataset name", r.Dataset))
	case len(r.Table) > maxName || !tablePattern.MatchString(r.Table):
		return sink.Permanent(fmt.Errorf("spec.bigquery.table: %q is not a valid table name", r.Table))
	}
	return nil
}

// sql is the backquoted table path for SQL text. It panics on an
// identifier that was not validated: building SQL from one is a bug.
func (r tableRef) sql() string {
	if err := r.validate(); err != nil {
		panic(fmt.Sprintf("unvalidated BigQuery identifier: %v", err))
	}
	return fmt.Sprintf("`%s.%s.%s`", r.Project, r.Dataset, r.Table)
}

// with returns the table of the same dataset named table.
func (r tableRef) with(table string) tableRef {
	r.Table = table
	return r
}
