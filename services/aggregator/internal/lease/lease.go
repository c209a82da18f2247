package lease

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Lease is one replica's handle on a named lease.
type Lease struct {
	kv     jetstream.KeyValue
	key    string
	holder string
	ttl    time.Duration
	now    func() time.Time
}

type record struct {
	Holder  string    `json:"holder"`
	Expires time.Time `json:"expires"`
}

// New returns the lease key in kv for holder, valid ttl after each renewal.
func New(kv jetstream.KeyValue, key, holder string, ttl time.Duration) *Lease {
	return &Lease{kv: kv, key: key, holder: holder, ttl: ttl, now: time.Now}
}

// Run waits until it holds the lease, then runs work with a context that is
// cancelled when the lease is lost or ctx ends; after work returns it
// releases the lease and competes again. It returns when ctx ends, or with
// work's error when work fails while still leader.
func (l *Lease) Run(ctx context.Context, work func(context.Context) error) error {
	for {
		rev, err := l.acquire(ctx)
		if err != nil {
			return err
		}
		wctx, cancel := context.WithCancel(ctx)
		lost := make(chan struct{})
		go func() {
			defer close(lost)
			l.hold(wctx, cancel, rev)
		}()
		err = work(wctx)
		cancel()
		<-lost
		if ctx.Err() != nil {
			return nil //nolint:nilerr // a cancelled ctx is a clean stop
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
}

// acquire polls until the key is absent, expired or already ours, and takes
// it with compare-and-set; it returns the revision written.
func (l *Lease) acquire(ctx context.Context) (uint64, error) {
	for {
		rev, err := l.try(ctx)
		if err == nil {
			return rev, nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(l.ttl / 3):
		}
	}
}

var errHeld = errors.New("lease held by another replica")

func (l *Lease) try(ctx context.Context) (uint64, error) {
	val, err := json.Marshal(record{Holder: l.holder, Expires: l.now().Add(l.ttl)})
	if err != nil {
		return 0, fmt.Errorf("encode lease %s: %w", l.key, err)
	}
	e, err := l.kv.Get(ctx, l.key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return l.kv.Create(ctx, l.key, val)
	}
	if err != nil {
		return 0, fmt.Errorf("read lease %s: %w", l.key, err)
	}
	var cur record
	if json.Unmarshal(e.Value(), &cur) == nil && cur.Holder != l.holder && l.now().Before(cur.Expires) {
		return 0, errHeld
	}
	return l.kv.Update(ctx, l.key, val, e.Revision())
}

// hold renews the lease at rev every ttl/3 until ctx ends, then releases it;
// it calls lost when a renewal fails, or when renewals keep failing until the
// lease would have expired.
func (l *Lease) hold(ctx context.Context, lost context.CancelFunc, rev uint64) {
	expires := l.now().Add(l.ttl)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			rctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = l.kv.Delete(rctx, l.key, jetstream.LastRevision(rev))
			cancel()
			return
		case <-t.C:
		}
		val, err := json.Marshal(record{Holder: l.holder, Expires: l.now().Add(l.ttl)})
		if err != nil {
			lost()
			continue
		}
		next, err := l.kv.Update(ctx, l.key, val, rev)
		switch {
		case err == nil:
			rev, expires = next, l.now().Add(l.ttl)
		case errors.Is(err, jetstream.ErrKeyRevisionMismatch) || !l.now().Before(expires.Add(-l.ttl/3)):
			lost()
		}
	}
}
