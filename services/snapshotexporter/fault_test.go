package snapshotexporter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// The Git server is unreachable while three revisions are published; when
// it is back the newest wins, and no revision is committed twice or after a
// newer one.
func TestASinkDownForAWhileGetsTheNewestStateWithoutDuplicateCommits(t *testing.T) {
	s := newSystem(t)
	s.git.CreateRepo(t, "inv")
	proxy := testenv.StartProxy(t, strings.TrimPrefix(s.git.URL, "http://"))
	s.addGitSink("git", "good", "http://"+proxy.Addr+"/inv.git")
	s.start()
	s.publish(1, "nginx:1.0")
	s.waitRevision("inv", 1)
	proxy.Down()
	s.publish(2, "nginx:2.0")
	s.publish(3, "nginx:3.0", "redis:7")
	s.publish(4, "nginx:4.0", "redis:7")
	if err := proxy.Up(); err != nil {
		t.Fatal(err)
	}
	s.waitRevision("inv", 4)
	revs := s.revisions("inv")
	checkIncreasing(t, "inv", revs)
	if got := s.git.Show(t, "inv.git", "main", "east/team-a/deployment/web-0.yaml"); !strings.Contains(got, "nginx:4.0") {
		t.Fatalf("web-0 after the outage:\n%s", got)
	}
}

// Two replicas of the snapshot exporter consume one inventory's stream: the
// repository gets each revision at most once, in order, ending at the last.
func TestTwoExporterReplicasCommitEachRevisionAtMostOnceInOrder(t *testing.T) {
	s := newSystem(t)
	s.git.CreateRepo(t, "inv")
	s.addGitSink("git", "good", s.git.URL+"/inv.git")
	s.start()
	s.start()
	const last = 12
	for rev := uint64(1); rev <= last; rev++ {
		s.publish(rev, "nginx:1."+strings.Repeat("0", int(rev)))
	}
	s.waitRevision("inv", last)
	checkIncreasing(t, "inv", s.revisions("inv"))
}

// One sink of an inventory refuses its credentials for good: it is
// dead-lettered while the other sink of the same inventory keeps exporting.
func TestAPermanentlyFailingSinkDoesNotStopAnotherOfTheSameInventory(t *testing.T) {
	s := newSystem(t)
	s.git.CreateRepo(t, "good")
	s.git.CreateRepo(t, "refused")
	s.addGitSink("good", "good", s.git.URL+"/good.git")
	s.addGitSink("refused", "bad", s.git.URL+"/refused.git")
	s.start()
	s.publish(1, "nginx:1.0")
	s.waitRevision("good", 1)
	s.publish(2, "nginx:2.0")
	s.waitRevision("good", 2)
	st, err := s.nats.JS.Stream(context.Background(), bus.StreamDeadLetters)
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.GetLastMsgForSubject(context.Background(), bus.DeadLetterSubject(busv1.FamilySnapshot, inv))
	if err != nil {
		t.Fatalf("no dead letter for the refused sink: %v", err)
	}
	var dl busv1.DeadLetter
	if err := json.Unmarshal(m.Data, &dl); err != nil {
		t.Fatal(err)
	}
	if dl.Sink == nil || dl.Sink.Name != "refused" {
		t.Fatalf("dead letter %+v, want one for sink refused", dl)
	}
	if strings.Contains(string(m.Data), "wrong") {
		t.Fatal("the dead letter carries the refused password")
	}
	if revs := s.revisionsOrNone("refused"); len(revs) != 0 {
		t.Fatalf("the refused repository has commits %v", revs)
	}
}
