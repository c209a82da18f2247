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

var errHeld = errors.New("lease held by another replica")

// try takes or renews the key, with compare-and-set, when it is absent,
// expired or already the holder's; errHeld when another holds it.
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
