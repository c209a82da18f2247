package collector_test

import (
	"testing"
)

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
