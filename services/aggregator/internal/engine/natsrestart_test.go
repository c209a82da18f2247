package engine

import (
	"testing"
	"time"
)

func TestTheEngineFollowsTheBusAcrossANATSRestart(t *testing.T) {
	b := newBed(t, nil)
	b.putInventory(nsInventory("team-a", "inv"))
	b.putRow(mkRow("team-a", "web", "u1", 1))
	e := b.start(Options{Settle: 5 * time.Millisecond, RetryBackoff: 20 * time.Millisecond})
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })
	b.n.Restart(t)
	waitFor(t, "the client to reconnect", func() bool { return b.n.Conn.IsConnected() })
	b.putRow(mkRow("team-a", "web", "u2", 1))
	waitFor(t, "the change after the restart", func() bool { return e.events.Load() == 2 })
	evs := b.history(key("team-a", "inv"))
	if len(evs) != 2 || evs[1].Event.Revision != 2 || evs[1].Event.ItemCount != 2 {
		t.Fatalf("history after the restart: %+v", evs)
	}
}
