package collector

import (
	"context"
	"fmt"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"kollect.dev/kollect/pkg/app"
)

// runElected takes part in leader election until ctx is cancelled and
// collects while it holds the Lease. Losing the Lease stops collecting and
// makes this replica a candidate again; it never ends the process.
func (d *deps) runElected(ctx context.Context, watchdog *leaderelection.HealthzAdaptor) error {
	lock, err := d.cfg.Leader.Lock(d.rest)
	if err != nil {
		return err
	}
	log := d.log.WithValues(app.KeyIdentity, d.cfg.Leader.Identity)
	for ctx.Err() == nil {
		if err := d.term(ctx, lock, watchdog); err != nil {
			return err
		}
		log.Info("not leading")
	}
	return nil
}

// term waits for the Lease, collects while holding it and returns when it
// is lost or ctx ends. The Lease is released only after collection stopped,
// so two replicas never write at once.
func (d *deps) term(ctx context.Context, lock resourcelock.Interface, watchdog *leaderelection.HealthzAdaptor) error {
	leading := make(chan context.Context, 1)
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, Name: d.cfg.Leader.ID, ReleaseOnCancel: true, WatchDog: watchdog,
		LeaseDuration: d.cfg.Leader.LeaseDuration, RenewDeadline: d.cfg.Leader.RenewDeadline, RetryPeriod: d.cfg.Leader.RetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { leading <- ctx },
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return fmt.Errorf("configure leader election on lease %s/%s: %w",
			d.cfg.Leader.LeaseNamespace(), d.cfg.Leader.ID, err)
	}
	watchdog.SetLeaderElection(le)
	// The elector gets its own context so that it releases the Lease after
	// collection stopped, not when ctx ends.
	leCtx, leCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer leCancel()
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		le.Run(leCtx)
	}()
	select {
	case <-ctx.Done():
	case <-runDone: // lost right after it was won
		return nil
	case lctx := <-leading:
		d.log.Info("leading: collecting", app.KeyIdentity, d.cfg.Leader.Identity)
		actx, cancel := context.WithCancel(lctx)
		stop := context.AfterFunc(ctx, cancel)
		err = d.runActive(actx)
		stop()
		cancel()
	}
	leCancel()
	<-runDone
	return err
}
