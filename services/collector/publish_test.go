package collector_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/collector"
)

// rejectRows makes the rows stream reject every write (a maximum message
// size no row fits in) and returns the function that accepts them again.
func (e *env) rejectRows() func() {
	e.t.Helper()
	st, err := e.nats.JS.Stream(e.ctx, "KV_"+bus.BucketRows)
	if err != nil {
		e.t.Fatal(err)
	}
	orig := st.CachedInfo().Config
	cfg := orig
	cfg.MaxMsgSize = 8
	if _, err := e.nats.JS.UpdateStream(e.ctx, cfg); err != nil {
		e.t.Fatal(err)
	}
	return func() {
		if _, err := e.nats.JS.UpdateStream(e.ctx, orig); err != nil {
			e.t.Fatal(err)
		}
	}
}

// rowPublishes counts, per image, the row writes published to the rows
// bucket, whether the stream stores them or not.
func (e *env) rowPublishes() func(image string) int {
	e.t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	sub, err := e.nats.Conn.Subscribe("$KV."+bus.BucketRows+".>", func(m *nats.Msg) {
		var entry busv1.RowEntry
		if json.Unmarshal(m.Data, &entry) == nil {
			img, _ := entry.Row.Attributes["image"].(string)
			mu.Lock()
			seen[img]++
			mu.Unlock()
		}
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = sub.Unsubscribe() })
	return func(image string) int {
		mu.Lock()
		defer mu.Unlock()
		return seen[image]
	}
}

// TestARejectedRowWriteLandsTheObjectsLatestContent: while the rows stream
// rejects writes, a Deployment changes twice; its object is evaluated and
// written again after each failure, and once the stream accepts writes its
// row holds the latest content.
func TestARejectedRowWriteLandsTheObjectsLatestContent(t *testing.T) {
	e := newEnv(t)
	ns := "rejected-writes"
	namespace(t, ns, nil)
	cfg := targetConfig(t, ns, "apps", 1, imageProfile(ns), in(ns))
	published := e.rowPublishes()
	e.start(func(c *collector.Config) { c.PublishAckTimeout = time.Second })
	e.put(cfg)
	web := deployment(ns, "web", "web:1", 1, nil)
	create(t, web)
	e.waitRows("the first row", images(t, cfg, web))

	accept := e.rejectRows()
	setImage := func(image string) {
		update(t, web, func() { web.Spec.Template.Spec.Containers[0].Image = image })
	}
	setImage("web:2")
	eventually(t, time.Minute, "the rejected write of web:2", func() error {
		if published("web:2") == 0 {
			return fmt.Errorf("not published yet")
		}
		return nil
	})
	setImage("web:3")
	eventually(t, time.Minute, "web:3 written again after its write was rejected", func() error {
		if n := published("web:3"); n < 2 {
			return fmt.Errorf("published %d times", n)
		}
		return nil
	})
	accept()
	e.waitRows("the latest content once the stream accepts writes", images(t, cfg, web))
	e.waitStatus(cfg, busv1.TargetStatus{CollectedCount: 1, MatchedNamespaces: []string{ns}})
}
