package collector_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/collector"
)

// TestACELTimeoutKeepsTheRowAndRetries covers M6 of the reliability review:
// an expression that runs out of wall time (CPU starvation, a GC pause)
// says nothing about the object, so its row stays and the object is
// evaluated again, instead of disappearing from every sink until it
// changes.
func TestACELTimeoutKeepsTheRowAndRetries(t *testing.T) {
	e := newEnv(t)
	namespace(t, "celtime", nil)
	p := profile("celtime", "keys", configMapGVK, attr("keys", "cel:object.data.map(k, k).size()"))
	cfg := targetConfig(t, "celtime", "keys", 1, p, in("celtime"))
	data := map[string]string{}
	for i := range 300 { // enough iterations for the interrupt check to run
		data[fmt.Sprintf("k%03d", i)] = "v"
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "celtime", Name: "big"}, Data: data}
	create(t, cm)
	first := e.start()
	e.put(cfg)
	want := row(t, cfg, cm, map[string]any{"keys": float64(300)})
	e.waitRows("the row, evaluated in time", want)
	first.stop(t)

	// The same collector with no time to evaluate: every evaluation of
	// the expression is interrupted.
	addr := freeAddr(t)
	e.start(func(c *collector.Config) {
		c.Extract.CELTimeout, c.Metrics.BindAddress, c.Metrics.Secure = time.Nanosecond, addr, false
	})
	e.waitReport(cfg, func(s busv1.TargetStatus) error {
		if s.ExtractionFailures < 1 || !strings.Contains(s.LastExtractionError, "time limit exceeded") {
			return fmt.Errorf("%d failures, last %q; want the timeout reported", s.ExtractionFailures, s.LastExtractionError)
		}
		return nil
	})
	// Evaluated again (not forgotten): the failure counter passes 1.
	eventually(t, 30*time.Second, "a second evaluation", func() error {
		_, body := get(t, "http://"+addr+"/metrics")
		for line := range strings.Lines(body) {
			var n float64
			if _, err := fmt.Sscanf(line, `kollect_collector_extraction_failures_total{target="celtime/keys"} %g`, &n); err == nil && n >= 2 {
				return nil
			}
		}
		return fmt.Errorf("the object failed once and was not evaluated again")
	})
	got, err := e.currentRows()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].UID != want.UID {
		t.Fatalf("after a timeout the rows are %v, want the object's row kept", got)
	}
}

// TestARowOverTheBusLimitIsAFailureInStatus covers M7: a row too large for
// the rows bucket used to be retried forever, silently missing; it is now
// counted and reported like an extraction failure, and its stale row goes.
func TestARowOverTheBusLimitIsAFailureInStatus(t *testing.T) {
	e := newEnv(t)
	namespace(t, "bigrow", nil)
	p := profile("bigrow", "data", configMapGVK, attr("data", "$.data"))
	cfg := targetConfig(t, "bigrow", "data", 1, p, in("bigrow"))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "bigrow", Name: "big"},
		Data: map[string]string{"blob": "small"}}
	create(t, cm)
	e.start(func(c *collector.Config) { c.MaxRowBytes = 2048 })
	e.put(cfg)
	e.waitRows("the row while it is small", row(t, cfg, cm, map[string]any{"data": map[string]any{"blob": "small"}}))

	update(t, cm, func() { cm.Data["blob"] = strings.Repeat("x", 4096) })
	e.waitReport(cfg, func(s busv1.TargetStatus) error {
		if s.ExtractionFailures != 1 || !strings.Contains(s.LastExtractionError, "bigrow/big: row of ") ||
			!strings.Contains(s.LastExtractionError, "over the bus limit of 2048 bytes") {
			return fmt.Errorf("%d failures, last %q; want the oversized row reported", s.ExtractionFailures, s.LastExtractionError)
		}
		return nil
	})
	eventually(t, 30*time.Second, "no stale row of an object that cannot be written", func() error {
		got, err := e.currentRows()
		if err == nil && len(got) > 0 {
			err = fmt.Errorf("rows %v", got)
		}
		return err
	})
}
