package bigquery

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"

	"kollect.dev/kollect/pkg/sink"
)

// prepare provisions once per sink: in ensure mode it creates the dataset
// and tables when missing (with the typed columns of want), in existing
// mode it checks them; both check the columns of existing tables. It
// returns the typed columns of want the tables have, after adding the
// missing ones in ensure mode (typed.go).
func (s *Sink) prepare(ctx context.Context, want []typedColumn) ([]typedColumn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.provisioned {
		if err := s.provision(ctx, want); err != nil {
			return nil, err
		}
		s.provisioned = true
	}
	return s.typedColumns(ctx, want)
}

// provision creates or checks the dataset, the data table, the state
// table and, in history mode, the history and revisions tables; tables it
// creates have the typed columns cols. It records the columns of the data
// and history tables.
func (s *Sink) provision(ctx context.Context, cols []typedColumn) error {
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
	data := &bigquery.TableMetadata{Schema: append(tableSchema(), columnSchema(cols)...),
		TimePartitioning: &bigquery.TimePartitioning{Type: bigquery.DayPartitioningType, Field: "exported_at"},
		Clustering:       &bigquery.Clustering{Fields: []string{"cluster", "inventory_namespace", "inventory_name"}}}
	dataSchema, err := s.table(ctx, s.data.Table, data)
	if err != nil {
		return err
	}
	if _, err := s.table(ctx, s.data.Table+StateSuffix, &bigquery.TableMetadata{Schema: stateSchema()}); err != nil {
		return err
	}
	s.dataColumns = columnsOf(dataSchema)
	if !s.history {
		return nil
	}
	hist := &bigquery.TableMetadata{Schema: append(historySchema(), columnSchema(cols)...),
		Clustering: &bigquery.Clustering{Fields: []string{"cluster", "inventory_namespace", "inventory_name"}}}
	histSchema, err := s.table(ctx, s.data.Table+HistorySuffix, hist)
	if err != nil {
		return err
	}
	s.historyColumns = columnsOf(histSchema)
	_, err = s.table(ctx, s.data.Table+RevisionsSuffix, &bigquery.TableMetadata{Schema: revisionsSchema()})
	return err
}

// table creates (ensure mode) or requires the table name, checks that an
// existing one has every column of want, and returns the table's schema.
func (s *Sink) table(ctx context.Context, name string, want *bigquery.TableMetadata) (bigquery.Schema, error) {
	t := s.client.Dataset(s.data.Dataset).Table(name)
	md, err := t.Metadata(ctx)
	switch {
	case isNotFound(err) && s.ensure:
		if err := t.Create(ctx, want); isConflict(err) {
			return s.table(ctx, name, want) // created by another replica meanwhile
		} else if err != nil {
			return nil, classify(ctx, "create table "+name, err)
		}
		return want.Schema, nil
	case isNotFound(err):
		return nil, sink.Permanent(fmt.Errorf("provisioning mode existing: table %s.%s.%s does not exist", s.data.Project, s.data.Dataset, name))
	case err != nil:
		return nil, classify(ctx, "read table "+name, err)
	}
	return md.Schema, missingColumns(name, want.Schema, md.Schema)
}

// typedColumns returns the columns of want the tables have. In ensure
// mode it first adds the missing ones, once per sink and column: a server
// that ignores ALTER TABLE (the emulator) is not asked again.
func (s *Sink) typedColumns(ctx context.Context, want []typedColumn) ([]typedColumn, error) {
	tables := []tableColumns{s.dataColumns}
	if s.history {
		tables = append(tables, s.historyColumns)
	}
	have, missing := present(want, tables...)
	if !s.ensure {
		return have, nil
	}
	missing = slices.DeleteFunc(missing, func(c typedColumn) bool { return s.altered[strings.ToLower(c.Name)] })
	if len(missing) == 0 {
		return have, nil
	}
	for _, c := range missing {
		s.altered[strings.ToLower(c.Name)] = true
	}
	if err := s.addColumns(ctx, s.data.Table, missing, s.dataColumns); err != nil {
		return nil, err
	}
	if s.history {
		if err := s.addColumns(ctx, s.data.Table+HistorySuffix, missing, s.historyColumns); err != nil {
			return nil, err
		}
	}
	have, _ = present(want, tables...)
	return have, nil
}

// addColumns adds to the table name those of cols it lacks, then reads
// its columns again into got.
func (s *Sink) addColumns(ctx context.Context, name string, cols []typedColumn, got tableColumns) error {
	lacking := slices.DeleteFunc(slices.Clone(cols), func(c typedColumn) bool { return got[strings.ToLower(c.Name)] != nil })
	if len(lacking) == 0 {
		return nil
	}
	if err := s.exec(ctx, "add typed columns to "+name, addColumnsStatement(s.data.with(name), lacking)); err != nil {
		return err
	}
	md, err := s.client.Dataset(s.data.Dataset).Table(name).Metadata(ctx)
	if err != nil {
		return classify(ctx, "read table "+name, err)
	}
	clear(got)
	maps.Copy(got, columnsOf(md.Schema))
	return nil
}

// missingColumns names the columns of want absent from got, other than
// typed attribute columns (added, not required: typed.go).
func missingColumns(table string, want, got bigquery.Schema) error {
	have := map[string]bool{}
	for _, f := range got {
		have[strings.ToLower(f.Name)] = true
	}
	var missing []string
	for _, f := range want {
		if !have[f.Name] && !strings.HasPrefix(f.Name, AttributeColumnPrefix) {
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
