package collector

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"kollect.dev/kollect/services/collector/internal/logging"
)

// runElected takes part in leader election until ctx is cancelled and
// collects while it holds the Lease. Losing the Lease stops collecting and
// makes this replica a candidate again; it never ends the process.
func (d *deps) runElected(ctx context.Context, watchdog *leaderelection.HealthzAdaptor) error {
	client, err := kubernetes.NewForConfig(d.rest)
	if err != nil {
		return fmt.Errorf("create client for leader election: %w", err)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: d.cfg.LeaderElectionNamespace, Name: d.cfg.LeaderElectionID},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: d.cfg.Identity},
	}
	log := d.log.WithValues(logging.KeyIdentity, d.cfg.Identity)
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
		Lock: lock, Name: d.cfg.LeaderElectionID, ReleaseOnCancel: true, WatchDog: watchdog,
		LeaseDuration: d.cfg.LeaseDuration, RenewDeadline: d.cfg.RenewDeadline, RetryPeriod: d.cfg.RetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { leading <- ctx },
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return fmt.Errorf("configure leader election on lease %s/%s: %w",
			d.cfg.LeaderElectionNamespace, d.cfg.LeaderElectionID, err)
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
		d.log.Info("leading: collecting", logging.KeyIdentity, d.cfg.Identity)
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
