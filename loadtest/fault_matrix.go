package loadtest

// faultKind is how a fault is injected.
type faultKind string

const (
	// kindPoint arms a crash point (KOLLECT_FAILPOINT) in the instances:
	// the process kills itself there with SIGKILL.
	kindPoint faultKind = "crash point"
	// kindKill sends SIGKILL to the instance at a random moment.
	kindKill faultKind = "kill -9"
	// kindStop pauses the aggregator leader (SIGSTOP) past its lease, then
	// resumes it: a standby leads meanwhile.
	kindStop faultKind = "SIGSTOP past lease"
	// kindNATSKill kills every nats-server with SIGKILL and restarts them
	// on their stores: a whole-bus outage.
	kindNATSKill faultKind = "NATS kill -9"
	// kindKillLeader sends SIGKILL to the replica of insts that leads (or,
	// sharded, any replica) at a random moment and restarts it.
	kindKillLeader faultKind = "kill -9 leading replica"
	// kindScale starts one more replica of each of insts' services while
	// changes flow and stops it gracefully halfway through.
	kindScale faultKind = "replica added and removed"
	// kindNATSNodeKill kills one node of the NATS cluster with SIGKILL and
	// restarts it on its store; the other two keep the bus.
	kindNATSNodeKill faultKind = "NATS node kill -9"
	// kindNATSWipe kills every nats-server and restarts them with empty
	// stores.
	kindNATSWipe faultKind = "NATS store wiped"
	// kindPGKill kills PostgreSQL (the sink) with SIGKILL and restarts it.
	kindPGKill faultKind = "sink kill -9"
	// kindAPIKill kills kube-apiserver with SIGKILL and restarts it (etcd
	// keeps the cluster).
	kindAPIKill faultKind = "API server kill -9"
)

// fault is one row of the fault matrix.
type fault struct {
	name  string
	kind  faultKind
	insts []string // instances armed or killed
	point string   // crash point, for kindPoint
	// maxHit picks the hit the point fires at, uniformly in [1, maxHit], so
	// that runs crash at different moments of the same window.
	maxHit int
	// deleteWhileDown deletes objects while the armed instance is down,
	// so that its start has rows to sweep.
	deleteWhileDown bool
}

var (
	aggregators = []string{"aggregator-a", "aggregator-b"}
	collectors  = []string{"collector", "collector-b"}
)

// faultMatrix is every fault the suite injects, in run order.
func faultMatrix() []fault {
	fs := []fault{
		{name: "collector.beforeRowPut", kind: kindPoint, insts: collectors, point: "collector.beforeRowPut", maxHit: 40},
		{name: "collector.afterRowPut", kind: kindPoint, insts: collectors, point: "collector.afterRowPut", maxHit: 40},
		{name: "collector.midSweep", kind: kindPoint, insts: collectors, point: "collector.midSweep", maxHit: 3, deleteWhileDown: true},
		{name: "aggregator.afterObjectPut", kind: kindPoint, insts: aggregators, point: "aggregator.afterObjectPut", maxHit: 3},
		{name: "aggregator.afterPublish", kind: kindPoint, insts: aggregators, point: "aggregator.afterPublish", maxHit: 3},
		{name: "aggregator leader SIGSTOP", kind: kindStop, insts: aggregators},
	}
	for _, ex := range []string{"databaseexporter", "snapshotexporter", "eventexporter"} {
		fs = append(fs,
			fault{name: ex + " exporter.afterSinkWrite", kind: kindPoint, insts: []string{ex}, point: "exporter.afterSinkWrite", maxHit: 3},
			fault{name: ex + " exporter.afterStateCAS", kind: kindPoint, insts: []string{ex}, point: "exporter.afterStateCAS", maxHit: 3})
	}
	fs = append(fs, fault{name: "databaseexporter postgres.beforeCommit", kind: kindPoint, insts: []string{"databaseexporter"},
		point: "postgres.beforeCommit", maxHit: 3})
	for _, inst := range faultInstances {
		fs = append(fs, fault{name: "kill -9 " + inst, kind: kindKill, insts: []string{inst}})
	}
	return append(fs,
		fault{name: "kill -9 leading collector replica", kind: kindKillLeader, insts: collectors},
		fault{name: "kill -9 leading aggregator replica", kind: kindKillLeader, insts: aggregators},
		fault{name: "collector and aggregator replica added and removed", kind: kindScale, insts: []string{"collector-c", "aggregator-c"}},
		fault{name: "NATS node kill -9", kind: kindNATSNodeKill},
		fault{name: "NATS kill -9, store kept", kind: kindNATSKill},
		fault{name: "NATS kill -9, store wiped", kind: kindNATSWipe},
		fault{name: "PostgreSQL kill -9", kind: kindPGKill},
		fault{name: "kube-apiserver kill -9", kind: kindAPIKill},
	)
}
