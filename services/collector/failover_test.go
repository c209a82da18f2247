package collector_test

import (
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/collector"
)

// elected runs the collector with leader election on a Lease in ns.
func elected(ns, id, metricsAddr string, workers int) func(*collector.Config) {
	return func(c *collector.Config) {
		c.Leader.Enabled = true
		c.Leader.Namespace = ns
		c.Leader.Identity = id
		c.Leader.LeaseDuration, c.Leader.RenewDeadline, c.Leader.RetryPeriod = 4*time.Second, 3*time.Second, 200*time.Millisecond
		c.Metrics.BindAddress = metricsAddr
		c.Workers = workers
	}
}

// waitHolder waits until the collector Lease in ns is held by id.
func waitHolder(t *testing.T, ns, id string) {
	t.Helper()
	eventually(t, 60*time.Second, "lease holder "+id, func() error {
		var l coordinationv1.Lease
		if err := kube.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "kollect-collector"}, &l); err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != id {
			return fmt.Errorf("holder is %v", l.Spec.HolderIdentity)
		}
		return nil
	})
}

func TestStandbyTakesOverWithoutLosingOrDuplicatingRows(t *testing.T) {
	e := newEnv(t)
	namespace(t, "failover", nil)
	cfg := targetConfig(t, "failover", "deploys", 1, imageProfile("failover"), in("failover"))
	e.put(cfg)
	addrA, addrB := freeAddr(t), freeAddr(t)
	a := e.start(elected("failover", "replica-a", addrA, 4))
	waitHolder(t, "failover", "replica-a")
	e.start(elected("failover", "replica-b", addrB, 1))
	d1 := deployment("failover", "one", "one:1", 1, nil)
	create(t, d1)
	e.waitRows("the leader collects", images(t, cfg, d1))
	scrape(t, addrA, "kollect_collector_leader 1")
	scrape(t, addrB, "kollect_collector_leader 0")
	rev, seq := e.revisions()[bus.RowKey(images(t, cfg, d1).Key())], e.rowsSeq()

	a.stop(t)
	waitHolder(t, "failover", "replica-b")
	scrape(t, addrB, "kollect_collector_leader 1")
	d2 := deployment("failover", "two", "two:1", 1, nil)
	create(t, d2)
	e.waitRows("the standby that took over collects", images(t, cfg, d1), images(t, cfg, d2))
	if got := e.revisions()[bus.RowKey(images(t, cfg, d1).Key())]; got != rev {
		t.Errorf("the new leader rewrote an unchanged row: revision %d became %d", rev, got)
	}
	if got := e.rowsSeq() - seq; got != 1 {
		t.Errorf("the new leader wrote %d row messages, want 1 (the new object)", got)
	}
}

func TestCollectorSurvivesANATSRestart(t *testing.T) {
	e := newEnv(t)
	namespace(t, "nats-restart", nil)
	cfg := targetConfig(t, "nats-restart", "deploys", 1, imageProfile("nats-restart"), in("nats-restart"))
	e.start()
	e.put(cfg)
	d1 := deployment("nats-restart", "one", "one:1", 1, nil)
	create(t, d1)
	e.waitRows("rows before the restart", images(t, cfg, d1))

	e.nats.Restart(t)
	update(t, d1, func() { d1.Spec.Template.Spec.Containers[0].Image = "one:2" })
	d2 := deployment("nats-restart", "two", "two:1", 1, nil)
	create(t, d2)
	e.waitRows("changes made across the NATS restart reach the bus", images(t, cfg, d1), images(t, cfg, d2))
	second := targetConfig(t, "nats-restart", "second", 1, imageProfile("nats-restart"), in("nats-restart"))
	e.put(second)
	e.waitRows("a Target configured after the restart is collected", images(t, cfg, d1), images(t, cfg, d2),
		images(t, second, d1), images(t, second, d2))
}
