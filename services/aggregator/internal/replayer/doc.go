// Package replayer delivers KollectReplay requests: it watches the replay
// keys control writes into the config bucket (busv1.ReplayRequest), picks
// the selected revisions from the inventory's retained snapshot history,
// publishes each as a replay event addressed to the one binding, and waits
// until the binding's export state records that revision as replayed before
// it publishes the next, so a backfill reaches the sink in revision order.
// It reports progress on the status stream (StatusReport.Replay), which
// control folds into the KollectReplay's status.
//
// It does not build snapshots (the engine does) and does not write sinks
// (the exporters do); it runs on the aggregator's leader only, because the
// aggregator is the one writer of snapshot events.
package replayer
