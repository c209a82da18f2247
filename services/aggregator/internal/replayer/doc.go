// Package replayer delivers KollectReplay requests: it watches the replay
// keys control writes into the config bucket (busv1.ReplayRequest), picks
// the selected revisions from the index of the inventory's retained
// snapshot history (only the current inventory's, by uid), reads each
// selected event just before it publishes it as a replay event addressed to
// the one binding (memory: one event), and waits until the binding's export
// state records that revision as replayed before it publishes the next, so
// a backfill reaches the sink in revision order. It reports progress on the
// status stream (StatusReport.Replay), which control folds into the
// KollectReplay's status. Replays run in bounded slots (in all and per
// namespace, queued in arrival order), and a replay whose runs keep being
// interrupted fails after a bounded number of them.
//
// It does not build snapshots (the engine does) and does not write sinks
// (the exporters do); it runs on the aggregator's leader only, because the
// aggregator is the one writer of snapshot events.
package replayer
