package replayer_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// TestAReplayThatKeepsCrashingItsAggregatorFailsAfterItsAttempts: the
// aggregator is stopped while a replay runs, three times (a crash, an OOM
// kill or a lost lease look the same to the next one: the replay's last
// report is its own, Running). Each start counts the interrupted runs,
// pauses before running again, and the fourth start fails the replay
// saying it crashed its aggregator three times; a fifth start leaves it
// failed. F2 of SECURITY-3; before, every start ran the replay again from
// the beginning, for ever (seen failing: no Pending pause, Attempts never
// counted).
func TestAReplayThatKeepsCrashingItsAggregatorFailsAfterItsAttempts(t *testing.T) {
	b := newQuietBus(t)
	b.request("team-a", "heavy", b.inventoryAs("team-a", "apps", "", 2))
	sub, err := b.nats.Conn.SubscribeSync(replaySubject("team-a", "heavy"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.nats.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	var log lines
	opts := quietOptions(log.logger())
	opts.RunAttempts, opts.RunBackoff = 3, 20*time.Millisecond
	for run := 1; run <= 3; run++ {
		stop := b.startWith(opts)
		b.waitReport("team-a", "heavy", "running", func(st busv1.ReplayStatus) bool { return running(st) && st.Attempts == run })
		stop()
	}
	b.startWith(opts)
	st := b.waitReport("team-a", "heavy", "failed", func(st busv1.ReplayStatus) bool { return st.Phase == busv1.ReplayFailed })
	if st.Attempts != 3 || st.Reason != v1alpha1.ReasonReplayFailed ||
		!strings.HasPrefix(st.Message, "this replay crashed its aggregator 3 times: each of its 3 runs was interrupted") {
		t.Errorf("final report %+v, want Failed after 3 attempts, saying it crashed its aggregator 3 times", st)
	}

	// What the replay reported, in order: a run, then a pause and a run
	// for each interruption, then the failure.
	var got []string
	for {
		m, err := sub.NextMsg(5 * time.Second)
		if err != nil {
			t.Fatalf("reports so far %v: %v", got, err)
		}
		var r busv1.StatusReport
		if err := json.Unmarshal(m.Data, &r); err != nil || r.Replay == nil {
			t.Fatalf("report %s: %v", m.Data, err)
		}
		if r.Replay.Phase == busv1.ReplayRunning && r.Replay.RevisionsTotal != 0 {
			continue // the count, reported once the index is read
		}
		got = append(got, fmt.Sprintf("%s %d", r.Replay.Phase, r.Replay.Attempts))
		if r.Replay.Phase == busv1.ReplayFailed {
			break
		}
	}
	want := []string{"Running 1", "Pending 1", "Running 2", "Pending 2", "Running 3", "Failed 3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reports, phase and attempts (-want +got):\n%s", diff)
	}
	if !strings.Contains(st.Message, "check the aggregator's restarts") {
		t.Errorf("the final message %q does not say what to check", st.Message)
	}

	// Never again: the next aggregator finds it failed and leaves it.
	before, seq := log.count("replay already finished, not run again"), b.lastReportSeq("team-a", "heavy")
	b.startWith(opts)
	testenv.EventuallyTrue(t, 30*time.Second, "the next aggregator to leave the failed replay", func() bool {
		return log.count("replay already finished, not run again") > before
	})
	if now := b.lastReportSeq("team-a", "heavy"); now != seq {
		t.Errorf("a report after the failure: %+v", b.lastReport("team-a", "heavy"))
	}
}
