package collector_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"kollect.dev/kollect/pkg/testenv"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// eventually calls check until it returns nil, failing the test with the
// last error after the deadline.
func eventually(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, what, check)
}

// entries reads every row entry of the rows bucket, by key.
func (e *env) entries() (map[string]jetstream.KeyValueEntry, error) {
	keys, err := e.rows.ListKeys(e.ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]jetstream.KeyValueEntry{}
	for k := range keys.Keys() {
		if bus.IsMarkerKey(k) {
			continue
		}
		entry, err := e.rows.Get(e.ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		out[k] = entry
	}
	return out, nil
}

// currentRows decodes every row in the bucket, sorted canonically.
func (e *env) currentRows() ([]busv1.Row, error) {
	entries, err := e.entries()
	if err != nil {
		return nil, err
	}
	out := []busv1.Row{}
	for k, entry := range entries {
		var re busv1.RowEntry
		if err := json.Unmarshal(entry.Value(), &re); err != nil {
			return nil, fmt.Errorf("decode row %s: %w", k, err)
		}
		if got := bus.RowKey(re.Row.Key()); got != k {
			return nil, fmt.Errorf("row under key %s has key %s", k, got)
		}
		out = append(out, re.Row)
	}
	slices.SortFunc(out, busv1.CompareRows)
	return out, nil
}

// waitRows waits until the rows bucket holds exactly want.
func (e *env) waitRows(what string, want ...busv1.Row) {
	e.t.Helper()
	want = slices.Clone(want)
	slices.SortFunc(want, busv1.CompareRows)
	eventually(e.t, 60*time.Second, what, func() error {
		got, err := e.currentRows()
		if err != nil {
			return err
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return fmt.Errorf("rows (-want +got):\n%s", diff)
		}
		return nil
	})
}

// status returns the latest status report on a Target's subject.
func (e *env) status(cfg busv1.TargetConfig) (busv1.StatusReport, error) {
	var rep busv1.StatusReport
	subject := bus.StatusSubject(bus.StatusAddress{Service: busv1.ServiceCollector, Kind: cfg.Kind,
		Namespace: cfg.Namespace, Name: cfg.Name})
	s, err := e.nats.JS.Stream(e.ctx, bus.StreamStatus)
	if err != nil {
		return rep, err
	}
	msg, err := s.GetLastMsgForSubject(e.ctx, subject)
	if err != nil {
		return rep, fmt.Errorf("last report on %s: %w", subject, err)
	}
	if err := json.Unmarshal(msg.Data, &rep); err != nil {
		return rep, fmt.Errorf("decode report on %s: %w", subject, err)
	}
	if rep.Target == nil {
		return rep, fmt.Errorf("report on %s has no target section", subject)
	}
	return rep, nil
}

// waitStatus waits until the Target's latest report equals want.
func (e *env) waitStatus(cfg busv1.TargetConfig, want busv1.TargetStatus) {
	e.t.Helper()
	e.waitReport(cfg, func(got busv1.TargetStatus) error {
		if diff := cmp.Diff(want, got); diff != "" {
			return fmt.Errorf("status (-want +got):\n%s", diff)
		}
		return nil
	})
}

// waitReport waits until the Target's latest report is for its generation
// and passes check.
func (e *env) waitReport(cfg busv1.TargetConfig, check func(busv1.TargetStatus) error) {
	e.t.Helper()
	eventually(e.t, 60*time.Second, "status of "+cfg.Namespace+"/"+cfg.Name, func() error {
		rep, err := e.status(cfg)
		if err != nil {
			return err
		}
		if rep.Service != busv1.ServiceCollector || rep.Kind != cfg.Kind || rep.Namespace != cfg.Namespace || rep.Name != cfg.Name {
			return fmt.Errorf("report names %s %s %s/%s", rep.Service, rep.Kind, rep.Namespace, rep.Name)
		}
		if rep.Generation != cfg.Generation {
			return fmt.Errorf("report for generation %d, want %d", rep.Generation, cfg.Generation)
		}
		return check(*rep.Target)
	})
}
