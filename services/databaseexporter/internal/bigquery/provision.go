package bigquery

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/go-logr/logr"
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
		err := t.Create(ctx, want)
		if err == nil {
			return want.Schema, nil
		}
		if !isConflict(err) {
			return nil, classify(ctx, "create table "+name, err)
		}
		// Created by another replica meanwhile: check it as an existing one.
		if md, err = t.Metadata(ctx); err != nil {
			return nil, classify(ctx, "read table "+name, err)
		}
	case isNotFound(err):
		return nil, sink.Permanent(fmt.Errorf("provisioning mode existing: table %s.%s.%s does not exist", s.data.Project, s.data.Dataset, name))
	case err != nil:
		return nil, classify(ctx, "read table "+name, err)
	}
	return md.Schema, missingColumns(name, want.Schema, md.Schema)
}

// alterRetry is how long a column the server refused to add (a permanent
// error: no bigquery.tables.update, or no ALTER TABLE) waits before it is
// asked for again; a column added by hand meanwhile is seen then, or at a
// restart.
const alterRetry = time.Hour

// typedColumns returns the columns of want the tables have. In ensure
// mode it first adds the missing ones. A refusal does not fail the write:
// the attributes JSON keeps every value, so it is logged and the column
// asked for again after alterRetry; a transient error fails it (retried).
func (s *Sink) typedColumns(ctx context.Context, want []typedColumn) ([]typedColumn, error) {
	tables := []tableColumns{s.dataColumns}
	if s.history {
		tables = append(tables, s.historyColumns)
	}
	have, missing := present(want, tables...)
	if !s.ensure {
		return have, nil
	}
	now := time.Now()
	missing = slices.DeleteFunc(missing, func(c typedColumn) bool { return now.Before(s.altered[strings.ToLower(c.Name)]) })
	if len(missing) == 0 {
		return have, nil
	}
	err := s.addColumns(ctx, s.data.Table, missing, s.dataColumns)
	if err == nil && s.history {
		err = s.addColumns(ctx, s.data.Table+HistorySuffix, missing, s.historyColumns)
	}
	switch {
	case err != nil && !alterRefused(err):
		return nil, err
	case err != nil:
		for _, c := range missing {
			s.altered[strings.ToLower(c.Name)] = now.Add(alterRetry)
		}
		logr.FromContextOrDiscard(ctx).Error(err, "typed attribute columns not added; their values stay in the attributes JSON column",
			"table", s.data.Table, "columns", names(missing), "retryIn", alterRetry)
	}
	have, _ = present(want, tables...)
	return have, nil
}

// alterRefused reports whether err is an answer that ALTER TABLE will not
// run (a permanent error, or any 400 or 403 other than a rate or quota
// limit or a concurrent change): the emulator answers its "Statement not
// supported" with 400 jobInternalError, which elsewhere is retried.
func alterRefused(err error) bool {
	if sink.IsPermanent(err) {
		return true
	}
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != http.StatusBadRequest && ge.Code != http.StatusForbidden || conflict(ge.Message) {
		return false
	}
	return len(ge.Errors) == 0 || !slices.Contains([]string{"rateLimitExceeded", "quotaExceeded", "jobRateLimitExceeded"}, ge.Errors[0].Reason)
}

// addColumns reads the columns of the table name into got (one added by
// another replica, or by hand, counts), adds those of cols it still lacks,
// and reads them again.
func (s *Sink) addColumns(ctx context.Context, name string, cols []typedColumn, got tableColumns) error {
	if err := s.readColumns(ctx, name, got); err != nil {
		return err
	}
	lacking := slices.DeleteFunc(slices.Clone(cols), func(c typedColumn) bool { return got[strings.ToLower(c.Name)] != nil })
	if len(lacking) == 0 {
		return nil
	}
	if err := s.exec(ctx, "add typed columns to "+name, addColumnsStatement(s.data.with(name), lacking)); err != nil {
		return err
	}
	return s.readColumns(ctx, name, got)
}

// readColumns replaces got with the columns of the table name.
func (s *Sink) readColumns(ctx context.Context, name string, got tableColumns) error {
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
