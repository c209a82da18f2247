package bigquery

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"

	"kollect.dev/kollect/pkg/sink"
)

// prepare provisions once per sink: in ensure mode it creates the dataset
// and tables when missing, in existing mode it checks them; both check the
// columns of existing tables.
func (s *Sink) prepare(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provisioned {
		return nil
	}
	if err := s.provision(ctx); err != nil {
		return err
	}
	s.provisioned = true
	return nil
}

// provision creates or checks the dataset, the data table, the state
// table and, in history mode, the history and revisions tables.
func (s *Sink) provision(ctx context.Context) error {
	ds := s.client.Dataset(s.data.Dataset)
	_, err := ds.Metadata(ctx)
	switch {
	case isNotFound(err) && s.ensure:
		// Checked first: the emulator answers 500, not 409, to a re-create.
		err = ds.Create(ctx, &bigquery.DatasetMetadata{Location: s.location})
		if err != nil && !isConflict(err) {
			return classify(ctx, "create dataset "+s.data.Dataset, err)
		}
	case isNotFound(err):
		return sink.Permanent(fmt.Errorf("provisioning mode existing: dataset %s.%s does not exist", s.data.Project, s.data.Dataset))
	case err != nil:
		return classify(ctx, "read dataset "+s.data.Dataset, err)
	}
	data := &bigquery.TableMetadata{Schema: tableSchema(),
		TimePartitioning: &bigquery.TimePartitioning{Type: bigquery.DayPartitioningType, Field: "exported_at"},
		Clustering:       &bigquery.Clustering{Fields: []string{"cluster", "inventory_namespace", "inventory_name"}}}
	if err := s.table(ctx, s.data.Table, data); err != nil {
		return err
	}
	if err := s.table(ctx, s.data.Table+StateSuffix, &bigquery.TableMetadata{Schema: stateSchema()}); err != nil {
		return err
	}
	if !s.history {
		return nil
	}
	hist := &bigquery.TableMetadata{Schema: historySchema(),
		Clustering: &bigquery.Clustering{Fields: []string{"cluster", "inventory_namespace", "inventory_name"}}}
	if err := s.table(ctx, s.data.Table+HistorySuffix, hist); err != nil {
		return err
	}
	return s.table(ctx, s.data.Table+RevisionsSuffix, &bigquery.TableMetadata{Schema: revisionsSchema()})
}

// table creates (ensure mode) or requires the table name, and checks that
// an existing one has every column of want.
func (s *Sink) table(ctx context.Context, name string, want *bigquery.TableMetadata) error {
	t := s.client.Dataset(s.data.Dataset).Table(name)
	md, err := t.Metadata(ctx)
	switch {
	case isNotFound(err) && s.ensure:
		if err := t.Create(ctx, want); err != nil && !isConflict(err) {
			return classify(ctx, "create table "+name, err)
		}
		return nil
	case isNotFound(err):
		return sink.Permanent(fmt.Errorf("provisioning mode existing: table %s.%s.%s does not exist", s.data.Project, s.data.Dataset, name))
	case err != nil:
		return classify(ctx, "read table "+name, err)
	}
	return missingColumns(name, want.Schema, md.Schema)
}

// missingColumns names the columns of want absent from got.
func missingColumns(table string, want, got bigquery.Schema) error {
	have := map[string]bool{}
	for _, f := range got {
		have[strings.ToLower(f.Name)] = true
	}
	var missing []string
	for _, f := range want {
		if !have[f.Name] {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		return sink.Permanent(fmt.Errorf("table %s lacks the columns %s", table, strings.Join(missing, ", ")))
	}
	return nil
}

func isNotFound(err error) bool { return hasCode(err, http.StatusNotFound) }
func isConflict(err error) bool { return hasCode(err, http.StatusConflict) }

func hasCode(err error, code int) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == code
}
